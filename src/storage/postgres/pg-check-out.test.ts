import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { sampleRecord } from '../../../test/contracts/storage-contract.ts';
import { createTestSchema, startPostgresRelay, throughRelay } from '../../../test/helpers/postgres.ts';
import type { TcpRelay } from '../../../test/helpers/tcp-relay.ts';
import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import type { Storage } from '../ports.ts';
import { openPostgresStorage } from './pg-storage.ts';

/**
 * A connection reset while a transaction holds its pooled connection (the server restarts, a
 * failover, the network): the transaction fails, and the process goes on. Before checkOut, pg
 * emitted the reset as an 'error' nobody listened to, and Node ended the process with it.
 */
describe('a PostgreSQL connection reset inside a transaction', () => {
  let relay: TcpRelay;
  let storage: Storage;
  let drop: () => Promise<void>;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  before(async () => {
    const schema = await createTestSchema();
    drop = schema.drop;
    relay = await startPostgresRelay();
    storage = await openPostgresStorage(throughRelay(schema.url, relay).toString());
  });
  beforeEach(() => {
    uncaught.length = 0;
    process.on('uncaughtExceptionMonitor', onUncaught);
  });
  afterEach(async () => {
    process.off('uncaughtExceptionMonitor', onUncaught);
    await relay.restore();
  });
  after(async () => {
    await storage.close();
    await relay.close();
    await drop();
  });

  /** Runs `work`, cuts the relay the moment BEGIN goes out, and lets the socket's errors arrive. */
  async function cutInside(work: () => Promise<unknown>): Promise<unknown> {
    const begun = relay.clientSends('BEGIN');
    const failed = work().then(
      () => assert.fail('expected the transaction to fail'),
      (error: unknown) => error,
    );
    await begun;
    await relay.cut('refused');
    const error = await failed;
    // pg emits a reset's error, then another when the socket ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return error;
  }

  it('a usage batch: rejected as unavailable, no uncaught exception, written once the database is back', async () => {
    const records = [sampleRecord('cut-1'), sampleRecord('cut-2')];
    const error = await cutInside(() => storage.usage.appendBatch(records));
    assert.ok(error instanceof DependencyUnavailableError, String(error));
    assert.deepEqual(uncaught, []);
    await relay.restore();
    await storage.usage.appendBatch(records);
    assert.deepEqual(
      (await storage.usage.readRecords({ limit: 10 })).map((r) => r.id),
      ['cut-1', 'cut-2'],
    );
  });

  it('a newsletter signup: rejected as unavailable, no uncaught exception', async () => {
    const error = await cutInside(() =>
      storage.subscribers.signUp({
        email: 'cut@example.com',
        consent: { at: 1, source: 'api', ipHash: null, userAgent: null },
        doubleOptIn: false,
        confirmTokenHash: 'c'.repeat(64),
        confirmExpiresAt: 2,
        resendAfterMs: 1,
        unsubscribeTokenHash: 'u'.repeat(64),
        enqueue: false,
      }),
    );
    assert.ok(error instanceof DependencyUnavailableError, String(error));
    assert.deepEqual(uncaught, []);
  });

  it('every connection the PostgreSQL adapter holds across statements is taken through checkOut', () => {
    const folder = new URL('./', import.meta.url);
    const direct = readdirSync(folder)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'pg-check-out.ts')
      .filter((name) => /\.connect\(\)/.test(readFileSync(new URL(name, folder), 'utf8')));
    assert.deepEqual(direct, []);
  });
});
