import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleSignup } from '../../../test/contracts/subscriber-contract.ts';
import { createLogger } from '../../platform/logger.ts';
import { openSqliteStorage } from '../../storage/embedded/sqlite-storage.ts';
import type { OutboxEntry } from '../../storage/ports.ts';
import { OutboxWorker } from './outbox-worker.ts';

const logger = createLogger({ level: 'silent' });

async function storageWithEntry(email: string, at: number) {
  const storage = openSqliteStorage(':memory:');
  await storage.subscribers.signUp(sampleSignup(email, at, { enqueue: true, doubleOptIn: false }));
  return storage;
}

describe('OutboxWorker', () => {
  it('retries with growing delays and delivers once the upstream is back', async () => {
    const storage = await storageWithEntry('a@example.com', 0);
    let now = 0;
    const calls: number[] = [];
    const deliver = async (entry: OutboxEntry) => {
      calls.push(now);
      if (calls.length <= 2) throw new Error(`HTTP 503 (attempt ${entry.attempts + 1})`);
    };
    const worker = new OutboxWorker(
      storage.subscribers,
      deliver,
      { now: () => now, monotonic: () => 0 },
      logger,
      {
        backoff: { baseMs: 1_000, maxMs: 60_000 },
        random: () => 0,
      },
    );

    assert.equal(await worker.deliverDue(), 1);
    let [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual([entry?.state, entry?.attempts, entry?.nextAttemptAt], ['pending', 1, 500]);
    assert.match(entry?.lastError ?? '', /HTTP 503/);

    now = 499;
    assert.equal(await worker.deliverDue(), 0, 'not before the backoff is over');
    now = 500;
    assert.equal(await worker.deliverDue(), 1);
    [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual(
      [entry?.attempts, entry?.nextAttemptAt],
      [2, 500 + 1_000],
      'the second wait is twice as long',
    );

    now = 1_500;
    assert.equal(await worker.deliverDue(), 1);
    [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual([entry?.state, entry?.deliveredAt, entry?.lastError], ['delivered', 1_500, null]);
    now = 10_000_000;
    assert.equal(await worker.deliverDue(), 0, 'delivered once, never again');
    assert.deepEqual(calls, [0, 500, 1_500]);
    await storage.close();
  });

  it('marks an entry failed after its last attempt and keeps it', async () => {
    const storage = await storageWithEntry('b@example.com', 0);
    let now = 0;
    const worker = new OutboxWorker(
      storage.subscribers,
      async () => {
        throw new Error('HTTP 500');
      },
      { now: () => now, monotonic: () => 0 },
      logger,
      { maxAttempts: 3, backoff: { baseMs: 10, maxMs: 10 }, random: () => 0 },
    );
    for (let i = 0; i < 5; i++) {
      await worker.deliverDue();
      now += 1_000;
    }
    const [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual([entry?.state, entry?.attempts, entry?.lastError], ['failed', 3, 'HTTP 500']);
    assert.deepEqual(await storage.subscribers.outboxStats(), {
      pending: 0,
      failed: 1,
      oldestPendingAt: null,
    });
    await storage.close();
  });

  it('delivers as soon as it is woken, and stop() ends the loop', async () => {
    const storage = openSqliteStorage(':memory:');
    const delivered: string[] = [];
    const worker = new OutboxWorker(
      storage.subscribers,
      async (entry) => {
        delivered.push(entry.email);
      },
      { now: () => Date.now(), monotonic: () => 0 },
      logger,
      { pollIntervalMs: 60_000 },
    );
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await storage.subscribers.signUp(sampleSignup('c@example.com', Date.now(), { enqueue: true }));
    worker.wake();
    for (let i = 0; i < 100 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(delivered, ['c@example.com']);
    const started = Date.now();
    await worker.stop();
    assert.ok(Date.now() - started < 1_000, 'stop does not wait for the next poll');
    await storage.close();
  });

  it('on stop, aborts the delivery under way and reschedules it without counting an attempt', async () => {
    const storage = await storageWithEntry('d@example.com', Date.now());
    let started!: () => void;
    const inDelivery = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = new OutboxWorker(
      storage.subscribers,
      (_entry, signal) =>
        new Promise<void>((_resolve, reject) => {
          started();
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
      { now: () => Date.now(), monotonic: () => 0 },
      logger,
    );
    worker.start();
    await inDelivery;
    await worker.stop();
    const [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual(
      [entry?.state, entry?.attempts, entry?.lastError],
      ['pending', 0, 'interrupted by shutdown'],
    );
    assert.ok((entry?.nextAttemptAt ?? Infinity) <= Date.now(), 'due again at once after a restart');
    await storage.close();
  });
});
