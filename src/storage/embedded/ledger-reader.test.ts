import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import { LedgerReaderThread } from './ledger-reader.ts';
import { isSqliteUnavailable } from './sqlite-unavailable.ts';

describe('the ledger reader thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-reader-'));
  const file = join(dir, 'ledger.db');
  const db = new DatabaseSync(file);
  db.exec(
    "PRAGMA journal_mode = WAL; CREATE TABLE t (a TEXT, b INTEGER); INSERT INTO t VALUES ('x', 1), ('y', 2)",
  );
  /** A reader thread that dies at its first read. */
  const dying = new URL(
    `data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => process.exit(3));")}`,
  );
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a SELECT with its rows, and sees what another connection committed since', async () => {
    const reader = new LedgerReaderThread(file);
    try {
      assert.deepEqual(
        (await reader.all('SELECT a, b FROM t WHERE b >= ? ORDER BY b', [1])).map((row) => ({ ...row })),
        [
          { a: 'x', b: 1 },
          { a: 'y', b: 2 },
        ],
      );
      db.exec("INSERT INTO t VALUES ('z', 3)");
      const rows = await reader.all('SELECT count(*) AS n FROM t', []);
      assert.equal(rows[0]?.n, 3);
    } finally {
      await reader.close();
    }
  });

  it("refuses to write, and a query's error keeps node:sqlite's code and errcode", async () => {
    const reader = new LedgerReaderThread(file);
    try {
      await assert.rejects(reader.all("INSERT INTO t VALUES ('w', 4)", []), /readonly/);
      const error = await reader.all('SELECT * FROM missing', []).catch((caught: unknown) => caught);
      assert.ok(error instanceof Error);
      assert.equal((error as { code?: unknown }).code, 'ERR_SQLITE_ERROR');
      assert.equal((error as { errcode?: unknown }).errcode, 1);
      // A missing table is the query's fault, not the store's: no 503 for it.
      assert.equal(isSqliteUnavailable(error), false);
    } finally {
      await reader.close();
    }
  });

  it('rejects the reads on a thread that dies as the store being unavailable, and starts another', async () => {
    const reader = new LedgerReaderThread(file, { workerUrl: dying });
    try {
      const first = await Promise.allSettled([reader.all('SELECT 1', []), reader.all('SELECT 2', [])]);
      for (const outcome of first) {
        assert.equal(outcome.status, 'rejected');
        assert.ok((outcome as PromiseRejectedResult).reason instanceof DependencyUnavailableError);
      }
      assert.equal(reader.pending, 0);
      await assert.rejects(reader.all('SELECT 3', []), DependencyUnavailableError);
    } finally {
      await reader.close();
    }
  });

  it("gives a dead thread's reads their owner's places back", async () => {
    const reader = new LedgerReaderThread(file, { workerUrl: dying, maxPendingPerOwner: 2 });
    try {
      const lost = [reader.all('SELECT 1', [], 'busy'), reader.all('SELECT 2', [], 'busy')];
      assert.equal(reader.pending, 2);
      await Promise.allSettled(lost);
      // Were the places kept, the app would be refused from now on without its reads being queued.
      const next = [reader.all('SELECT 3', [], 'busy'), reader.all('SELECT 4', [], 'busy')];
      assert.equal(reader.pending, 2, 'both of the next reads were queued, on a new thread');
      for (const outcome of await Promise.allSettled(next)) assert.equal(outcome.status, 'rejected');
      assert.equal(reader.pending, 0);
    } finally {
      await reader.close();
    }
  });

  it('answers every read in the order sent while several wait', async () => {
    const reader = new LedgerReaderThread(file);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => reader.all('SELECT ? AS i', [i]).then((rows) => rows[0]?.i)),
      );
      assert.deepEqual(
        answers,
        Array.from({ length: 20 }, (_, i) => i),
      );
    } finally {
      await reader.close();
    }
  });

  it("gives each owner a share of the queue: one app's waiting reads cannot refuse another's", async () => {
    // Holds every read until one says `go`, then answers them all.
    const holding = new URL(
      `data:text/javascript,${encodeURIComponent(
        "import { parentPort } from 'node:worker_threads'; const held = []; parentPort.on('message', (m) => { held.push(m.id); if (m.sql === 'go') for (const id of held.splice(0)) parentPort.postMessage({ id, ok: true, rows: [] }); });",
      )}`,
    );
    const reader = new LedgerReaderThread(file, {
      workerUrl: holding,
      maxPending: 10,
      maxPendingPerOwner: 2,
    });
    try {
      const busy = [reader.all('SELECT 1', [], 'busy'), reader.all('SELECT 2', [], 'busy')];
      const third = reader.all('SELECT 3', [], 'busy').then(
        () => 'answered',
        (error: unknown) => error,
      );
      const other = reader.all('SELECT 4', [], 'other');
      const operator = reader.all('SELECT 5', []);
      assert.equal(reader.pending, 4, "the busy app's third read was not queued; the others' were");
      await reader.all('go', [], 'go');
      await Promise.all([...busy, other, operator]);
      assert.ok(
        (await third) instanceof DependencyUnavailableError,
        'the busy app past its share is refused',
      );
      // Answered reads give their places back.
      const again = [reader.all('SELECT 6', [], 'busy'), reader.all('SELECT 7', [], 'busy')];
      await reader.all('go', [], 'go');
      assert.equal((await Promise.all(again)).length, 2);
      assert.equal(reader.pending, 0);
    } finally {
      await reader.close();
    }
  });
});
