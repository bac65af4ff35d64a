import { join } from 'node:path';
import type { Storage } from '../ports.ts';
import { reportUnavailable } from '../report-unavailable.ts';
import { SqlAppStore } from '../sql-app-store.ts';
import { SQLITE_CLAIM, SqlBatchStore } from '../sql-batch-store.ts';
import { SqlGovernanceStore } from '../sql-governance-store.ts';
import { type RunSql, SqlLedgerInsights } from '../sql-ledger-insights.ts';
import { LedgerReaderThread } from './ledger-reader.ts';
import { LedgerWriterThread } from './ledger-writer.ts';
import { DATABASE_FILE, openSqlite } from './open-sqlite.ts';
import { SqliteExecutor } from './sqlite-executor.ts';
import { SqliteSessionRevocations } from './sqlite-session-revocations.ts';
import { SqliteStoredResponses } from './sqlite-stored-responses.ts';
import { SqliteSubscriberStore } from './sqlite-subscriber-store.ts';
import { isSqliteUnavailable } from './sqlite-unavailable.ts';
import { ATTEMPT_INSERT, REQUEST_INSERT, SqliteUsageLedger } from './sqlite-usage-ledger.ts';

/**
 * The embedded storage: one SQLite file in DATA_DIR (or ':memory:' for tests). Usage batches
 * from a file-backed store are written on a worker thread (see ledger-writer.ts); an in-memory
 * database is private to its connection, so it writes them itself.
 */
export function openSqliteStorage(dataDir: string): Storage {
  const db = openSqlite(dataDir);
  // A read of a table, not `SELECT 1`: that one reads no page of the file, and so passed on a file
  // whose every other statement was refused ("file is not a database").
  const ping = db.prepare('SELECT max(version) FROM schema_migrations');
  const file = dataDir === ':memory:' ? undefined : join(dataDir, DATABASE_FILE);
  const writer =
    file === undefined
      ? undefined
      : new LedgerWriterThread({ file, requestInsert: REQUEST_INSERT, attemptInsert: ATTEMPT_INSERT });
  // The ledger's heavy reads run on a thread of their own (an in-memory database has no file to
  // share, and stays on its connection).
  const reader = file === undefined ? undefined : new LedgerReaderThread(file);
  const onConnection: RunSql = async (sql, params) => db.prepare(sql).all(...params);
  const read: RunSql =
    reader === undefined ? onConnection : (sql, params, owner) => reader.all(sql, params, owner);
  const executor = new SqliteExecutor(db);
  return reportUnavailable(
    {
      apps: new SqlAppStore(executor),
      governance: new SqlGovernanceStore(executor),
      usage: new SqliteUsageLedger(db, writer, read),
      insights: new SqlLedgerInsights(read, onConnection),
      subscribers: new SqliteSubscriberStore(db),
      sessionRevocations: new SqliteSessionRevocations(db),
      responses: new SqliteStoredResponses(db),
      batches: new SqlBatchStore(executor, SQLITE_CLAIM),
      ping: async () => {
        ping.get();
      },
      close: async () => {
        await writer?.close();
        await reader?.close();
        if (db.isOpen) db.close();
      },
    },
    isSqliteUnavailable,
  );
}
