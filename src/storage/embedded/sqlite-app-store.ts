import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { AppExistsError, type AppRecord, type AppStore } from '../ports.ts';

interface AppRow {
  name: string;
  secret_hash: string;
  created_at: number;
  rotated_at: number | null;
  revoked_at: number | null;
}

function toRecord(row: AppRow): AppRecord {
  return {
    name: row.name,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    rotatedAt: row.rotated_at,
    revokedAt: row.revoked_at,
  };
}

export class SqliteAppStore implements AppStore {
  readonly #find: StatementSync;
  readonly #list: StatementSync;
  readonly #insert: StatementSync;
  readonly #setSecret: StatementSync;
  readonly #revoke: StatementSync;
  readonly #replaceHash: StatementSync;

  constructor(db: DatabaseSync) {
    this.#find = db.prepare('SELECT * FROM apps WHERE name = ?');
    this.#list = db.prepare('SELECT * FROM apps ORDER BY name');
    this.#insert = db.prepare(
      'INSERT INTO apps (name, secret_hash, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.#setSecret = db.prepare(
      'UPDATE apps SET secret_hash = ?, rotated_at = ?, revoked_at = NULL WHERE name = ?',
    );
    this.#replaceHash = db.prepare(
      'UPDATE apps SET secret_hash = ? WHERE name = ? AND secret_hash = ? AND revoked_at IS NULL',
    );
    this.#revoke = db.prepare('UPDATE apps SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL');
  }

  async findApp(name: string): Promise<AppRecord | undefined> {
    const row = this.#find.get(name) as AppRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  async listApps(): Promise<AppRecord[]> {
    return (this.#list.all() as unknown as AppRow[]).map(toRecord);
  }

  async createApp(name: string, secretHash: string, at: number): Promise<void> {
    const result = this.#insert.run(name, secretHash, at);
    if (result.changes === 0) throw new AppExistsError(name);
  }

  async setSecret(name: string, secretHash: string, at: number): Promise<boolean> {
    return this.#setSecret.run(secretHash, at, name).changes > 0;
  }

  async replaceSecretHash(name: string, expected: string, secretHash: string): Promise<boolean> {
    return this.#replaceHash.run(secretHash, name, expected).changes > 0;
  }

  async revokeApp(name: string, at: number): Promise<boolean> {
    return this.#revoke.run(at, name).changes > 0;
  }
}
