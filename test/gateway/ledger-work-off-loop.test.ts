import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { DATABASE_FILE } from '../../src/storage/embedded/open-sqlite.ts';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';

const ROWS = 60_000;
const END_USERS = 2_000;

/** The longest the event loop went without a turn while `work` ran (a 1 ms ticker's widest gap). */
async function longestHold(work: () => Promise<unknown> | unknown): Promise<number> {
  let last = performance.now();
  let widest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    widest = Math.max(widest, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  last = performance.now();
  await work();
  const now = performance.now();
  widest = Math.max(widest, now - last);
  clearInterval(ticker);
  return widest;
}

// The embedded ledger's reads over many rows run on the reader's thread (ledger-reader.ts), and
// retention's deletes on the writer's (delete-ledger-before.js): a day of a busy app's spend by end
// user is read, and a day of rows deleted, without holding the event loop.
describe("the embedded ledger's heavy reads and deletes, off the event loop", () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-reads-'));
  let storage: Storage;
  const now = Date.now();
  const midnight = Math.floor(now / 86_400_000) * 86_400_000;
  const query = { app: 'busy', from: midnight, to: now + 3_600_000, groupBy: ['endUser' as const] };

  before(async () => {
    storage = openSqliteStorage(dir);
    const perBatch = 10_000;
    for (let batch = 0; batch < ROWS / perBatch; batch++)
      await storage.usage.appendBatch(
        Array.from({ length: perBatch }, (_, i) =>
          sampleRecord(`busy-${batch}-${i}`, {
            app: 'busy',
            endUser: `person-${(batch * perBatch + i) % END_USERS}`,
            costUsd: 0.001,
            createdAt: midnight + ((batch * perBatch + i) % Math.max(1, now - midnight)),
          }),
        ),
      );
  });
  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers what the same query on the main connection answers, holding the loop a fraction as long', async (t) => {
    // Warm: the reader's thread starts on its first read.
    await storage.usage.totals(query);
    let offLoop: unknown;
    const offHold = await longestHold(async () => {
      offLoop = await storage.usage.totals(query);
    });
    // The same SELECT on a connection of this thread, as every read ran before the reader existed.
    const db = new DatabaseSync(join(dir, DATABASE_FILE), { readOnly: true });
    let onLoopRows: unknown[] = [];
    const onHold = await longestHold(() => {
      onLoopRows = db
        .prepare(
          'SELECT end_user, COUNT(*) AS requests, SUM(cost_usd) AS cost FROM usage_requests WHERE app = ? AND created_at >= ? AND created_at < ? GROUP BY end_user',
        )
        .all(query.app, query.from, query.to);
    });
    db.close();
    t.diagnostic(
      `longest hold: ${offHold.toFixed(1)} ms through the reader, ${onHold.toFixed(1)} ms on the main connection`,
    );
    const rows = offLoop as { endUser: string; requests: number }[];
    assert.equal(rows.length, END_USERS);
    assert.equal(onLoopRows.length, END_USERS);
    assert.equal(
      rows.reduce((sum, row) => sum + row.requests, 0),
      ROWS,
    );
    assert.ok(
      offHold < onHold / 3,
      `the read held the loop ${offHold.toFixed(1)} ms; on the main connection ${onHold.toFixed(1)} ms`,
    );
  });

  it('refuses reads past the bound on waiting ones rather than queueing them without end', async () => {
    // An app without rows: each read is short, and 300 are sent before the first is answered.
    const reads = Array.from({ length: 300 }, () =>
      storage.usage.totals({ ...query, app: 'quiet' }).then(
        () => 'answered',
        (error: Error) => error.name,
      ),
    );
    const outcomes = await Promise.all(reads);
    assert.ok(outcomes.includes('answered'));
    assert.ok(
      outcomes
        .filter((outcome) => outcome !== 'answered')
        .every((name) => name === 'DependencyUnavailableError'),
    );
    assert.ok(outcomes.filter((outcome) => outcome !== 'answered').length >= 300 - 256);
  });

  it("deletes rows past retention without holding the loop for the delete's length", async (t) => {
    // Row k was made at midnight + k (modulo the time since midnight): the first half goes.
    const cutoff = midnight + Math.floor(Math.min(ROWS, Math.max(1, now - midnight)) / 2);
    const started = performance.now();
    let deleted = 0;
    const hold = await longestHold(async () => {
      deleted = await storage.usage.deleteBefore(cutoff);
    });
    const took = performance.now() - started;
    t.diagnostic(`deleted ${deleted} rows in ${took.toFixed(1)} ms; longest hold ${hold.toFixed(1)} ms`);
    assert.ok(deleted > ROWS / 4, `${deleted} deleted`);
    assert.ok(
      hold < took / 3,
      `the delete took ${took.toFixed(1)} ms and held the loop ${hold.toFixed(1)} ms`,
    );
  });
});
