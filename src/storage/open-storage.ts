import type { Config } from '../config/config-types.ts';
import { openSqliteStorage } from './embedded/sqlite-storage.ts';
import type { Storage } from './ports.ts';
import { openPostgresStorage } from './postgres/pg-storage.ts';

/** The embedded store by default; PostgreSQL when DATABASE_URL is set. */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.databaseUrl !== undefined) return openPostgresStorage(config.databaseUrl);
  return openSqliteStorage(config.dataDir);
}
