import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sampleRecord } from '../../../../test/contracts/storage-contract.ts';
import { ControlledLedger, ids, readSpilled, settle } from '../../../../test/helpers/controlled-ledger.ts';
import { ApiError } from '../../../platform/errors.ts';
import { createLogger } from '../../../platform/logger.ts';
import { UsageRecorder, type UsageRecorderOptions } from './usage-recorder.ts';

const silent = createLogger({ level: 'silent' });
const pendingTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

function setUp(options: UsageRecorderOptions = {}) {
  const ledger = new ControlledLedger();
  const spillDir = mkdtempSync(join(tmpdir(), 'recorder-'));
  const recorder = new UsageRecorder(ledger, silent, {
    batchSize: 50,
    flushIntervalMs: 10_000,
    spillDir,
    ...options,
  });
  const record = (list: string[]) => {
    for (const id of list) recorder.record(sampleRecord(id));
  };
  return { ledger, recorder, record, spillDir };
}

/** Whether a promise has settled, without waiting for it. */
function track(promise: Promise<unknown>): { done: boolean; failed: unknown } {
  const state: { done: boolean; failed: unknown } = { done: false, failed: undefined };
  promise.then(
    () => {
      state.done = true;
    },
    (error: unknown) => {
      state.done = true;
      state.failed = error;
    },
  );
  return state;
}

describe('UsageRecorder under concurrency (writes settled by hand)', () => {
  it('a read’s flush and the background flush never write at once: each record once, in order', async () => {
    const timersBefore = pendingTimers();
    const { ledger, recorder, record } = setUp();
    record(ids('r', 0, 10));
    const read = track(recorder.flush());
    await settle();
    assert.deepEqual(ledger.front, ids('r', 0, 10), 'the read’s flush writes what is waiting');
    // A full batch arrives while that write is in flight: its trigger must not start a second writer.
    record(ids('r', 10, 60));
    await settle();
    assert.equal(ledger.writes.length, 1, 'one writer at a time');
    ledger.succeed();
    await settle();
    assert.equal(read.done, true, 'the read waited only for what was recorded before it');
    assert.deepEqual(ledger.front, ids('r', 10, 60));
    ledger.succeed();
    await settle();
    assert.deepEqual(ledger.committed, ids('r', 0, 60));
    assert.equal(recorder.pending, 0);
    assert.equal(ledger.maxInFlight, 1);
    assert.equal(pendingTimers(), timersBefore, 'no flush timer outlives the work');
  });

  it('a flush is not starved by traffic that keeps coming', async () => {
    const { ledger, recorder, record } = setUp();
    record(ids('s', 0, 5));
    const flush = track(recorder.flush());
    for (let round = 0; round < 5; round++) {
      await settle();
      // Another full batch is recorded before each write completes.
      record(ids('s', 5 + round * 50, 5 + (round + 1) * 50));
      ledger.succeed();
    }
    await settle();
    assert.equal(flush.done, true, 'the flush returned once its own five records were written');
    while (ledger.writes.length > 0) {
      ledger.succeed();
      await settle();
    }
    assert.deepEqual(ledger.committed, ids('s', 0, 255));
  });

  it('records that came during a write wait for a full batch or their timer, not a batch of their own', async () => {
    const timersBefore = pendingTimers();
    const { ledger, recorder, record } = setUp({ batchSize: 10, flushIntervalMs: 60 });
    record(ids('t', 0, 10));
    await settle();
    assert.deepEqual(ledger.front, ids('t', 0, 10), 'a full batch is written at once');
    record(ids('t', 10, 13));
    ledger.succeed();
    await settle();
    assert.equal(ledger.writes.length, 0, 'three records do not make a write of their own');
    record(ids('t', 13, 20));
    await settle();
    assert.deepEqual(ledger.front, ids('t', 10, 20), 'they go with the batch they filled');
    ledger.succeed();
    record(ids('t', 20, 23));
    await settle();
    assert.equal(ledger.writes.length, 0);
    // Left alone, they are written when the timer of the first of them fires.
    const waitedFrom = Date.now();
    while (ledger.writes.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(Date.now() - waitedFrom >= 40, 'written by the timer, not at once');
    assert.deepEqual(ledger.front, ids('t', 20, 23));
    ledger.succeed();
    await settle();
    assert.deepEqual(ledger.committed, ids('t', 0, 23));
    assert.equal(recorder.pending, 0);
    assert.equal(pendingTimers(), timersBefore, 'no flush timer outlives the work');
  });

  it('a failed batch stays the front: retried before newer records, each written once', async () => {
    const { ledger, recorder, record } = setUp();
    record(ids('f', 0, 3));
    const first = track(recorder.flush());
    await settle();
    ledger.fail();
    await settle();
    assert.equal(first.done, true, 'a failed write answers the flush');
    assert.equal(recorder.pending, 3, 'and keeps the records');
    // While backing off, even a full batch does not hammer the failing ledger.
    record(ids('f', 3, 53));
    await settle();
    assert.equal(ledger.writes.length, 0, 'no write during the backoff');
    const second = track(recorder.flush());
    await settle();
    assert.deepEqual(ledger.front, ids('f', 0, 3), 'a flush retries at once, the failed batch first');
    ledger.succeed();
    await settle();
    assert.deepEqual(ledger.front, ids('f', 3, 53));
    ledger.succeed();
    await settle();
    assert.equal(second.done, true);
    assert.deepEqual(ledger.committed, ids('f', 0, 53));
    assert.equal(ledger.maxInFlight, 1);
  });

  it('retries by itself after a failure, with backoff', async () => {
    const { ledger, recorder, record } = setUp({ flushIntervalMs: 5 });
    record(ids('b', 0, 4));
    await new Promise((resolve) => setTimeout(resolve, 20));
    ledger.fail();
    const failedAt = Date.now();
    while (ledger.writes.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(Date.now() - failedAt >= 100, 'waited at least the first backoff');
    ledger.succeed();
    await settle();
    assert.deepEqual(ledger.committed, ids('b', 0, 4));
    assert.equal(recorder.pending, 0);
  });

  it('the final flush joins a write in flight: what it commits is not spilled too', async () => {
    const { ledger, recorder, record, spillDir } = setUp();
    record(ids('c', 0, 50));
    await settle();
    assert.equal(ledger.writes.length, 1, 'a background write is in flight');
    const final = track(recorder.flush({ final: true }));
    record(ids('c', 50, 52)); // a request finishing during shutdown
    await settle();
    assert.equal(ledger.writes.length, 1, 'shutdown does not start a second writer');
    ledger.succeed();
    // The ledger fails from here on: the rest is retried, then spilled.
    for (let i = 0; i < 10 && !final.done; i++) {
      await settle();
      if (ledger.writes.length > 0) ledger.fail();
    }
    await settle();
    assert.equal(final.done, true, 'shutdown gives up after a few attempts');
    assert.deepEqual(ledger.committed, ids('c', 0, 50));
    assert.deepEqual(readSpilled(spillDir), ids('c', 50, 52));
    assert.equal(recorder.pending, 0);
  });

  it('a background write that fails during shutdown is retried, not spilled and not lost', async () => {
    const { ledger, recorder, record, spillDir } = setUp();
    record(ids('d', 0, 50));
    await settle();
    const final = track(recorder.flush({ final: true }));
    ledger.fail();
    await settle();
    assert.deepEqual(ledger.front, ids('d', 0, 50), 'the final flush writes the failed batch again');
    ledger.succeed();
    await settle();
    assert.equal(final.done, true);
    assert.deepEqual(ledger.committed, ids('d', 0, 50));
    assert.deepEqual(readSpilled(spillDir), []);
  });

  it('records after the final flush go straight to the spill file, and no timer is left behind', async () => {
    const before = pendingTimers();
    const { ledger, recorder, record, spillDir } = setUp({ flushIntervalMs: 50 });
    record(ids('t', 0, 3));
    await new Promise((resolve) => setTimeout(resolve, 70));
    ledger.fail(); // leaves a retry timer
    await settle();
    const final = track(recorder.flush({ final: true }));
    for (let i = 0; i < 10 && !final.done; i++) {
      await settle();
      if (ledger.writes.length > 0) ledger.fail();
    }
    assert.equal(final.done, true);
    record(ids('t', 3, 4));
    await new Promise((resolve) => setTimeout(resolve, 70));
    assert.equal(ledger.writes.length, 0, 'nothing is written to a closed ledger');
    assert.deepEqual(readSpilled(spillDir), ids('t', 0, 4));
    assert.equal(pendingTimers(), before, 'no timer of the recorder is still pending');
  });

  it('past the high-water mark a request waits, bounded: released when written, refused with a 503 after the wait', async () => {
    const { ledger, recorder, record } = setUp({ highWaterMark: 3, highWaterWaitMs: 40, batchSize: 2 });
    record(ids('h', 0, 3));
    await settle();
    const refused = recorder.whenWritable();
    assert.ok(refused instanceof Promise);
    const error = await refused.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof ApiError, 'refused once the wait is over');
    assert.equal(error.code, 'service_unavailable');
    assert.equal(error.statusCode, 503);
    assert.ok(Number(error.headers?.['retry-after']) > 0);

    const released = track(recorder.whenWritable() as Promise<void>);
    ledger.succeed(); // two of three written: below the mark
    await settle();
    assert.equal(released.done, true);
    assert.equal(released.failed, undefined);

    record(ids('h', 3, 5));
    await settle();
    const atShutdown = track(recorder.whenWritable() as Promise<void>);
    const final = recorder.flush({ final: true });
    for (let i = 0; i < 10 && ledger.writes.length > 0; i++) {
      ledger.fail();
      await settle();
    }
    await final;
    assert.equal(atShutdown.done, true, 'a waiting request is woken when shutdown spills the backlog');
    assert.equal(atShutdown.failed, undefined);
  });
});
