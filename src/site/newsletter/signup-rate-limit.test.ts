import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/logger.ts';
import { InProcessLimitStore, type LimitStore } from '../../storage/limit-store.ts';
import { createSignupRateLimit } from './signup-rate-limit.ts';

const logger = createLogger({ level: 'silent' });

describe('signup rate limit', () => {
  it('allows the limit per minute per address, then says when to come back', async () => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    let now = start + 45_500;
    const limit = createSignupRateLimit(
      new InProcessLimitStore(),
      2,
      { now: () => now, monotonic: () => 0 },
      logger,
    );
    assert.deepEqual(await limit.take('203.0.113.1'), { allowed: true });
    assert.deepEqual(await limit.take('203.0.113.1'), { allowed: true });
    assert.deepEqual(await limit.take('203.0.113.1'), { allowed: false, retryAfterSeconds: 15 });
    assert.deepEqual(await limit.take('203.0.113.2'), { allowed: true }, 'another address has its own count');
    assert.deepEqual(await limit.take('2001:db8:1:2::1'), { allowed: true });
    assert.deepEqual(await limit.take('2001:db8:1:2::2'), { allowed: true });
    assert.equal((await limit.take('2001:db8:1:2::3')).allowed, false, 'one /64 is one client');
    now = start + 59_999;
    assert.deepEqual(await limit.take('203.0.113.1'), { allowed: false, retryAfterSeconds: 1 });
  });

  it('lets signups through when the counter store fails', async () => {
    const broken: LimitStore = {
      reserve: async () => {
        throw new Error('redis down');
      },
      adjust: async () => {},
      acquireLease: async () => undefined,
      releaseLease: async () => {},
    };
    const limit = createSignupRateLimit(broken, 1, { now: () => 0, monotonic: () => 0 }, logger);
    assert.deepEqual(await limit.take('203.0.113.1'), { allowed: true });
  });
});
