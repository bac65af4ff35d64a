import { MIGRATIONS_TABLE_SQL, readMigrations } from '../migrations.ts';
import type { PgConnections } from './pg-connections.ts';
import { longRunning } from './pg-statement-timeout.ts';

// Any constant works; it only has to be the same for every instance of this service.
const MIGRATION_LOCK_KEY = 7_262_911;

/**
 * Applies pending migrations, each in its own transaction. A session advisory lock makes
 * instances that start together take turns, so each migration runs exactly once.
 */
export async function migratePostgres(connections: PgConnections): Promise<void> {
  const { client } = await connections.checkOut();
  const query = longRunning(client);
  try {
    await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await query(MIGRATIONS_TABLE_SQL);
    const applied = new Set(
      (await query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) =>
        Number(r.version),
      ),
    );
    for (const migration of readMigrations('postgres')) {
      if (applied.has(migration.version)) continue;
      await query('BEGIN');
      try {
        await query(migration.sql);
        await query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          Date.now(),
        ]);
        await query('COMMIT');
      } catch (error) {
        await query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
}
