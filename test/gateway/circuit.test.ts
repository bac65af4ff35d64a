import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, type Harness, startHarness } from '../helpers/harness.ts';

const messages = [{ role: 'user', content: 'circuit' }];

describe('per-provider circuit breaker', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ file: { circuit: { failureThreshold: 3, cooldownMs: 60_000 } } });
  });
  after(() => h.close());

  const post = (payload: Record<string, unknown>) =>
    h.gateway.inject({ method: 'POST', url: '/v1/chat', headers: AUTH, payload: { messages, ...payload } });

  it('opens after repeated failures, then skips the slot without calling it', async () => {
    const failing = { metadata: { simulated: { fault: 'server_error', slots: ['provider-a'] } } };
    const first = await post(failing);
    assert.equal(first.json().provider, 'provider-b');
    assert.equal(h.callsTo('provider-a'), 3, 'three failed calls open the circuit');

    const second = await post({});
    assert.equal(second.statusCode, 200);
    assert.equal(second.json().provider, 'provider-b', 'the open slot is skipped');
    assert.equal(h.callsTo('provider-a'), 3, 'no further call to the open slot');
  });

  it('an explicit provider with an open circuit gets 503 provider_unavailable at once', async () => {
    const before = h.calls.length;
    const res = await post({ provider: 'provider-a' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'provider_unavailable');
    assert.equal(h.calls.length, before);
  });
});
