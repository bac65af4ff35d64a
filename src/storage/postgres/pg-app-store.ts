import { AppExistsError, type AppRecord, type AppStore } from '../ports.ts';
import type { PgConnections } from './pg-connections.ts';

interface AppRow {
  name: string;
  secret_hash: string;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
}

const toMs = (value: string | null): number | null => (value === null ? null : Number(value));

function toRecord(row: AppRow): AppRecord {
  return {
    name: row.name,
    secretHash: row.secret_hash,
    createdAt: Number(row.created_at),
    rotatedAt: toMs(row.rotated_at),
    revokedAt: toMs(row.revoked_at),
  };
}

export class PgAppStore implements AppStore {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async findApp(name: string): Promise<AppRecord | undefined> {
    const { rows } = await this.#pool.query<AppRow>({
      name: 'app-find',
      text: 'SELECT * FROM apps WHERE name = $1',
      values: [name],
    });
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async listApps(): Promise<AppRecord[]> {
    const { rows } = await this.#pool.query<AppRow>('SELECT * FROM apps ORDER BY name');
    return rows.map(toRecord);
  }

  async createApp(name: string, secretHash: string, at: number): Promise<void> {
    const result = await this.#pool.query(
      'INSERT INTO apps (name, secret_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, secretHash, at],
    );
    if (result.rowCount === 0) throw new AppExistsError(name);
  }

  async setSecret(name: string, secretHash: string, at: number): Promise<boolean> {
    const result = await this.#pool.query(
      'UPDATE apps SET secret_hash = $1, rotated_at = $2, revoked_at = NULL WHERE name = $3',
      [secretHash, at, name],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async replaceSecretHash(name: string, expected: string, secretHash: string): Promise<boolean> {
    const result = await this.#pool.query(
      'UPDATE apps SET secret_hash = $1 WHERE name = $2 AND secret_hash = $3 AND revoked_at IS NULL',
      [secretHash, name, expected],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async revokeApp(name: string, at: number): Promise<boolean> {
    const result = await this.#pool.query(
      'UPDATE apps SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL',
      [at, name],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
