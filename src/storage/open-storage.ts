import type { Config } from '../config/config-types.ts';
import { openSqliteStorage } from './embedded/sqlite-storage.ts';
import type { Storage } from './ports.ts';

/**
 * The embedded store by default; PostgreSQL when DATABASE_URL is set. The PostgreSQL modules
 * are loaded only then, so the embedded store does not pay for pg's code.
 */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.databaseUrl !== undefined) {
    const { openPostgresStorage } = await import('./postgres/pg-storage.ts');
    return openPostgresStorage(config.databaseUrl);
  }
  return openSqliteStorage(config.dataDir);
}
