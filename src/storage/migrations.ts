import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

export type SqlEngine = 'sqlite' | 'postgres';

/**
 * The numbered SQL files in order: `NNN_name.sql` is shared by every engine; `NNN_name.sqlite.sql`
 * and `NNN_name.postgres.sql` are one migration written twice, for what the engines spell
 * differently (triggers).
 */
export function readMigrations(engine: SqlEngine): Migration[] {
  const other = engine === 'sqlite' ? 'postgres' : 'sqlite';
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d+_.+\.sql$/.test(file) && !file.endsWith(`.${other}.sql`))
    .map((file) => ({
      version: Number.parseInt(file, 10),
      name: file,
      sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

export const MIGRATIONS_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)';
