import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS_TABLE_SQL, readMigrations } from '../migrations.ts';

export const DATABASE_FILE = 'gateway.sqlite';

/**
 * Opens (creating if needed) the embedded database in `dataDir`, or in memory for ':memory:',
 * and applies pending migrations in one transaction each.
 */
export function openSqlite(dataDir: string): DatabaseSync {
  const inMemory = dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(inMemory ? ':memory:' : join(dataDir, DATABASE_FILE));
  // The busy timeout comes first: processes opening a fresh file together contend for the lock
  // that switching to WAL takes, and without it the loser fails at once with SQLITE_BUSY.
  // WAL lets the CLI and the server use the file at once; NORMAL sync is durable across
  // process crashes (only an OS crash can lose the last commits).
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  migrate(db);
  return db;
}

function migrate(db: DatabaseSync): void {
  db.exec(MIGRATIONS_TABLE_SQL);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
      (row) => row.version,
    ),
  );
  for (const migration of readMigrations('sqlite')) {
    if (applied.has(migration.version)) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      // Another process may have applied it between our read and our lock.
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
      if (done === undefined) {
        db.exec(migration.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          migration.version,
          migration.name,
          Date.now(),
        );
      }
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}
