import { ConfigError } from '../config/config-error.ts';
import type { Config } from '../config/config-types.ts';
import { openSqliteStorage } from './embedded/sqlite-storage.ts';
import type { Storage } from './ports.ts';

/** The embedded store by default; PostgreSQL when DATABASE_URL is set. */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(
      'DATABASE_URL',
      'is not supported by this build yet (PostgreSQL storage is in progress)',
    );
  }
  return openSqliteStorage(config.dataDir);
}
