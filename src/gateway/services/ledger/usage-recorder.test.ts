import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sampleRecord } from '../../../../test/contracts/storage-contract.ts';
import { createLogger } from '../../../platform/logger.ts';
import type { UsageLedger, UsageRecord } from '../../../storage/ports.ts';
import { UsageRecorder } from './usage-recorder.ts';

class MemoryLedger implements UsageLedger {
  batches: UsageRecord[][] = [];
  failing = false;
  async appendBatch(records: readonly UsageRecord[]) {
    if (this.failing) throw new Error('ledger down');
    this.batches.push([...records]);
  }
  async readRecords() {
    return this.batches.flat();
  }
  async totals(): Promise<never> {
    throw new Error('not used by the recorder');
  }
  async deleteBefore(): Promise<never> {
    throw new Error('not used by the recorder');
  }
}

const silent = createLogger({ level: 'silent' });

describe('UsageRecorder', () => {
  it('writes in batches of the configured size, off the request path', async () => {
    const ledger = new MemoryLedger();
    const recorder = new UsageRecorder(ledger, silent, { batchSize: 3, flushIntervalMs: 10_000 });
    for (let i = 0; i < 7; i++) recorder.record(sampleRecord(`r${i}`));
    assert.equal(ledger.batches.length, 0, 'nothing written synchronously');
    await recorder.flush();
    assert.deepEqual(
      ledger.batches.map((b) => b.length),
      [3, 3, 1],
    );
  });

  it('flushes a partial batch after the interval', async () => {
    const ledger = new MemoryLedger();
    const recorder = new UsageRecorder(ledger, silent, { batchSize: 100, flushIntervalMs: 20 });
    recorder.record(sampleRecord('late'));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(ledger.batches.flat().length, 1);
  });

  it('keeps records while the ledger fails and writes them once it recovers', async () => {
    const ledger = new MemoryLedger();
    ledger.failing = true;
    const recorder = new UsageRecorder(ledger, silent, { batchSize: 2, flushIntervalMs: 5 });
    for (let i = 0; i < 5; i++) recorder.record(sampleRecord(`k${i}`));
    await recorder.flush();
    assert.equal(recorder.pending, 5);
    ledger.failing = false;
    await recorder.flush();
    assert.equal(recorder.pending, 0);
    assert.equal(ledger.batches.flat().length, 5);
  });

  it('makes new work wait past the high-water mark, and releases it when written', async () => {
    const ledger = new MemoryLedger();
    ledger.failing = true;
    const recorder = new UsageRecorder(ledger, silent, {
      batchSize: 10,
      flushIntervalMs: 10_000,
      highWaterMark: 3,
    });
    assert.equal(recorder.whenWritable(), undefined);
    for (let i = 0; i < 3; i++) recorder.record(sampleRecord(`w${i}`));
    const wait = recorder.whenWritable();
    assert.ok(wait instanceof Promise);
    let released = false;
    void wait.then(() => {
      released = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(released, false);
    ledger.failing = false;
    await recorder.flush();
    await wait;
    assert.equal(released, true);
  });

  it('spills to a JSON-lines file at shutdown when the ledger is still down: nothing is lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-'));
    const ledger = new MemoryLedger();
    ledger.failing = true;
    const recorder = new UsageRecorder(ledger, silent, { spillDir: dir, flushIntervalMs: 10_000 });
    recorder.record(sampleRecord('s1'));
    recorder.record(sampleRecord('s2'));
    await recorder.flush({ final: true });
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    const lines = readFileSync(join(dir, files[0] as string), 'utf8')
      .trim()
      .split('\n');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).id),
      ['s1', 's2'],
    );
  });

  it('a read waits for the flush at most 5 s when the ledger does not answer (a network partition)', async (t) => {
    let answer: (() => void) | undefined;
    const hanging: UsageLedger = {
      appendBatch: () => new Promise<void>((resolve) => (answer = resolve)),
      readRecords: async () => [],
      totals: async () => [],
      deleteBefore: async () => 0,
    };
    const recorder = new UsageRecorder(hanging, silent, { flushIntervalMs: 60_000 });
    recorder.record(sampleRecord('held'));
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let waited = false;
    const read = recorder.flushBeforeRead().then(() => (waited = true));
    await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(4_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(waited, false, 'still waiting for the write');
    t.mock.timers.tick(1);
    await read;
    assert.equal(recorder.pending, 1, 'the record stays queued');
    answer?.();
    await recorder.flush();
    assert.equal(recorder.pending, 0);
  });
});
