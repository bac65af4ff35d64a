import type { Storage } from '../ports.ts';
import { openSqlite } from './open-sqlite.ts';
import { SqliteAppStore } from './sqlite-app-store.ts';
import { SqliteSubscriberStore } from './sqlite-subscriber-store.ts';
import { SqliteUsageLedger } from './sqlite-usage-ledger.ts';

/** The embedded storage: one SQLite file in DATA_DIR (or ':memory:' for tests). */
export function openSqliteStorage(dataDir: string): Storage {
  const db = openSqlite(dataDir);
  const ping = db.prepare('SELECT 1');
  return {
    apps: new SqliteAppStore(db),
    usage: new SqliteUsageLedger(db),
    subscribers: new SqliteSubscriberStore(db),
    ping: async () => {
      ping.get();
    },
    close: async () => {
      if (db.isOpen) db.close();
    },
  };
}
