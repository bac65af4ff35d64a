import { AppExistsError, type AppRecord, type AppStore } from './ports.ts';
import {
  all,
  run,
  type SqlExecutor,
  type SqlRow,
  type Statement,
  toNullableNumber,
  toNumber,
} from './sql-executor.ts';

/**
 * The next governance version, taken inside the writer's transaction: the clock's row lock orders
 * writers, so versions commit in the order they are taken (migration 009, decision 0026).
 */
export function* nextVersion(): Generator<Statement, number, SqlRow[]> {
  const rows = yield all('UPDATE governance_clock SET version = version + 1 WHERE id = 1 RETURNING version');
  return toNumber(rows[0]?.version);
}

function toRecord(row: SqlRow): AppRecord {
  return {
    name: String(row.name),
    secretHash: String(row.secret_hash),
    createdAt: toNumber(row.created_at),
    rotatedAt: toNullableNumber(row.rotated_at),
    revokedAt: toNullableNumber(row.revoked_at),
  };
}

/**
 * Apps and their first secret, on either engine. The secret lives in apps.secret_hash and, as
 * key `primary`, in app_keys, which is what requests are checked against; both change together.
 */
export class SqlAppStore implements AppStore {
  readonly #sql: SqlExecutor;

  constructor(sql: SqlExecutor) {
    this.#sql = sql;
  }

  async findApp(name: string): Promise<AppRecord | undefined> {
    const rows = await this.#sql.all('SELECT * FROM apps WHERE name = ?', [name]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async listApps(): Promise<AppRecord[]> {
    return (await this.#sql.all('SELECT * FROM apps ORDER BY name')).map(toRecord);
  }

  async createApp(name: string, secretHash: string, at: number): Promise<void> {
    const created = await this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const inserted = yield run(
        'INSERT INTO apps (name, secret_hash, created_at, version) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
        [name, secretHash, at, version],
      );
      if (inserted === 0) return false;
      yield* writePrimaryKey(name, secretHash, at, version);
      return true;
    });
    if (!created) throw new AppExistsError(name);
  }

  async setSecret(name: string, secretHash: string, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const changed = yield run(
        'UPDATE apps SET secret_hash = ?, rotated_at = ?, revoked_at = NULL, version = ? WHERE name = ?',
        [secretHash, at, version, name],
      );
      if (changed === 0) return false;
      yield* writePrimaryKey(name, secretHash, at, version);
      return true;
    });
  }

  async replaceSecretHash(name: string, expected: string, secretHash: string): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const changed = yield run(
        'UPDATE apps SET secret_hash = ?, version = ? WHERE name = ? AND secret_hash = ? AND revoked_at IS NULL',
        [secretHash, version, name, expected],
      );
      if (changed === 0) return false;
      yield run(
        "UPDATE app_keys SET secret_hash = ?, version = ? WHERE app = ? AND id = 'primary' AND secret_hash = ?",
        [secretHash, version, name, expected],
      );
      return true;
    });
  }

  async revokeApp(name: string, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      return (
        (yield run('UPDATE apps SET revoked_at = ?, version = ? WHERE name = ? AND revoked_at IS NULL', [
          at,
          version,
          name,
        ])) > 0
      );
    });
  }
}

/** Key `primary` holds the app's own secret again: not revoked, no end. */
function* writePrimaryKey(
  app: string,
  secretHash: string,
  at: number,
  version: number,
): Generator<Statement, void, number> {
  const updated = yield run(
    "UPDATE app_keys SET secret_hash = ?, created_at = ?, expires_at = NULL, revoked_at = NULL, version = ? WHERE app = ? AND id = 'primary'",
    [secretHash, at, version, app],
  );
  if (updated === 0)
    yield run(
      "INSERT INTO app_keys (app, id, name, secret_hash, created_at, version) VALUES (?, 'primary', 'primary', ?, ?, ?)",
      [app, secretHash, at, version],
    );
}
