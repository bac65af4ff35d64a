import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageRecorder } from '../../src/gateway/services/ledger/usage-recorder.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import type { Storage, UsageLedger, UsageRecord } from '../../src/storage/ports.ts';
import { openPostgresStorage } from '../../src/storage/postgres/pg-storage.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { createTestSchema } from '../helpers/postgres.ts';

const silent = createLogger({ level: 'silent' });

/**
 * Every other write commits and then reports a failure, as when the connection drops after
 * COMMIT or the writer thread dies before its reply: the recorder writes the batch again.
 */
function committingThenFailing(ledger: UsageLedger): UsageLedger & { lies: number } {
  let calls = 0;
  const wrapped = {
    lies: 0,
    appendBatch: async (records: readonly UsageRecord[]) => {
      await ledger.appendBatch(records);
      if (calls++ % 2 === 0) {
        wrapped.lies++;
        throw new Error('connection lost after COMMIT');
      }
    },
    readRecords: ledger.readRecords.bind(ledger),
    totals: ledger.totals.bind(ledger),
    deleteBefore: ledger.deleteBefore.bind(ledger),
  };
  return wrapped;
}

const stores: [string, () => Promise<{ storage: Storage; drop: () => Promise<void> }>][] = [
  [
    'embedded (writer thread)',
    async () => ({ storage: openSqliteStorage(mkdtempSync(join(tmpdir(), 'retry-'))), drop: async () => {} }),
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { storage: await openPostgresStorage(schema.url), drop: schema.drop };
    },
  ],
];

describe('a ledger write that committed but reported failure is retried without a duplicate', () => {
  for (const [name, open] of stores) {
    it(name, async (t) => {
      const { storage, drop } = await open();
      t.after(async () => {
        await storage.close();
        await drop();
      });
      const ledger = committingThenFailing(storage.usage);
      const recorder = new UsageRecorder(ledger, silent, { batchSize: 50, flushIntervalMs: 10 });
      const ids = Array.from({ length: 230 }, (_, i) => `retry-${String(i).padStart(3, '0')}`);
      for (const id of ids) recorder.record(sampleRecord(id));
      for (let round = 0; recorder.pending > 0 && round < 50; round++) await recorder.flush();
      assert.equal(recorder.pending, 0);
      assert.ok(ledger.lies >= 3, 'writes were retried after committing');
      const rows = await storage.usage.readRecords({ limit: 1_000 });
      assert.deepEqual(
        rows.map((r) => r.id),
        ids,
        'each record once',
      );
      assert.ok(
        rows.every((r) => r.attempts.length === 2),
        'attempts once each',
      );
    });
  }
});
