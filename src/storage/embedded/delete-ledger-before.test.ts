import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { sampleRecord } from '../../../test/contracts/storage-contract.ts';
import type { Storage } from '../ports.ts';
import { ROWS_PER_DELETE } from './delete-ledger-before.js';
import { DATABASE_FILE, openSqlite } from './open-sqlite.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

const HOUR = 3_600_000;
const CUTOFF = 1_700_000_000_000 + 10 * 24 * HOUR;
const OLD = 2 * ROWS_PER_DELETE + 123;
const KEPT = 50;

async function seed(storage: Storage): Promise<void> {
  const records = [
    ...Array.from({ length: OLD }, (_, i) =>
      sampleRecord(`old-${i}`, { createdAt: CUTOFF - 5 * 24 * HOUR + (i % 1000) }),
    ),
    ...Array.from({ length: KEPT }, (_, i) => sampleRecord(`kept-${i}`, { createdAt: CUTOFF + i })),
  ];
  for (let at = 0; at < records.length; at += 4000)
    await storage.usage.appendBatch(records.slice(at, at + 4000));
}

function counts(db: DatabaseSync): Record<string, number> {
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  return {
    requests: count('SELECT count(*) AS n FROM usage_requests'),
    attempts: count('SELECT count(*) AS n FROM usage_attempts'),
    oldAttempts: count("SELECT count(*) AS n FROM usage_attempts WHERE usage_id LIKE 'old-%'"),
    dailyBefore: count(
      `SELECT count(*) AS n FROM usage_daily WHERE day < ${CUTOFF - (CUTOFF % (24 * HOUR))}`,
    ),
  };
}

// Retention's delete in chunks of ROWS_PER_DELETE (delete-ledger-before.js), on the writer's
// thread for a file and on its own connection in memory: the same rows go, whatever the chunking.
describe("retention's delete of the embedded ledger", () => {
  it('on the writer thread: every request before the cutoff and its attempts, over several chunks, and the whole rollup days before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-retention-'));
    const storage = openSqliteStorage(dir);
    try {
      await seed(storage);
      assert.equal(await storage.usage.deleteBefore(CUTOFF), OLD);
      const db = new DatabaseSync(join(dir, DATABASE_FILE), { readOnly: true });
      const after = counts(db);
      db.close();
      assert.equal(after.requests, KEPT);
      assert.equal(after.oldAttempts, 0);
      assert.ok((after.attempts ?? 0) > 0, 'the kept requests keep their attempts');
      assert.equal(after.dailyBefore, 0);
      assert.equal(await storage.usage.deleteBefore(CUTOFF), 0, 'a second sweep finds nothing');
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('batches appended while a sweep runs are written between its chunks, and every one of their rows is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-retention-'));
    const storage = openSqliteStorage(dir);
    try {
      await seed(storage);
      const order: string[] = [];
      const sweep = storage.usage.deleteBefore(CUTOFF).then((deleted) => {
        order.push('sweep');
        return deleted;
      });
      const appends = Array.from({ length: 5 }, (_, batch) =>
        storage.usage
          .appendBatch(
            Array.from({ length: 100 }, (_, i) =>
              sampleRecord(`new-${batch}-${i}`, { createdAt: CUTOFF + 1_000 + i }),
            ),
          )
          .then(() => order.push(`batch ${batch}`)),
      );
      assert.equal(await sweep, OLD, 'the sweep deletes the old rows and none of the new');
      await Promise.all(appends);
      assert.ok(order.indexOf('batch 0') < order.indexOf('sweep'), `not held for the whole sweep: ${order}`);
      const db = new DatabaseSync(join(dir, DATABASE_FILE), { readOnly: true });
      const after = counts(db);
      const fresh = Number(
        (db.prepare("SELECT count(*) AS n FROM usage_requests WHERE id LIKE 'new-%'").get() as { n: number })
          .n,
      );
      db.close();
      assert.equal(fresh, 500);
      assert.equal(after.requests, KEPT + 500);
      assert.equal(after.oldAttempts, 0);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in memory, on its own connection, the same', async () => {
    const storage = openSqliteStorage(':memory:');
    try {
      await seed(storage);
      assert.equal(await storage.usage.deleteBefore(CUTOFF), OLD);
      const rows = await storage.usage.readRecords({ limit: 1000 });
      assert.equal(rows.length, KEPT);
      assert.ok(rows.every((row) => row.id.startsWith('kept-')));
    } finally {
      await storage.close();
    }
  });

  it('finds the oldest requests by the created_at index, not by reading the whole table', () => {
    const db = openSqlite(':memory:');
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT id FROM usage_requests WHERE created_at < ? ORDER BY created_at LIMIT ${ROWS_PER_DELETE}`,
      )
      .all(CUTOFF)
      .map((row) => String((row as { detail: string }).detail));
    db.close();
    assert.ok(
      plan.some((detail) => detail.includes('usage_requests_created')),
      plan.join('; '),
    );
    assert.ok(!plan.some((detail) => /^SCAN usage_requests$/.test(detail)), plan.join('; '));
  });

  it("finds nothing to delete without starting the writer's thread (the sweep at start-up)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-retention-'));
    const storage = openSqliteStorage(dir);
    try {
      const threads = () => readdirSync('/proc/self/task').length;
      const before = threads();
      assert.equal(await storage.usage.deleteBefore(CUTOFF), 0);
      assert.equal(threads(), before, 'no thread was started');
      // With a row past the cutoff, the sweep does run on the writer's thread.
      await storage.usage.appendBatch([sampleRecord('old', { createdAt: CUTOFF - 1 })]);
      assert.equal(await storage.usage.deleteBefore(CUTOFF), 1);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
