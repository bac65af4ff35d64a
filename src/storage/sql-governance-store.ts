import {
  type AppSettingsRecord,
  type AuditEntry,
  ConflictError,
  type EntitySettings,
  type EntitySource,
  type GovernanceChanges,
  type GovernanceStore,
  type KeyCreation,
  type KeyRecord,
  type TeamDeletion,
  type TeamRecord,
  type TeamTokenRecord,
} from './governance-ports.ts';
import { nextVersion } from './sql-app-store.ts';
import { all, run, type SqlExecutor, type SqlRow, toNullableNumber, toNumber } from './sql-executor.ts';

function settingsOf(value: unknown): EntitySettings {
  if (typeof value !== 'string' || value === '') return {};
  return JSON.parse(value) as EntitySettings;
}

function toTeam(row: SqlRow): TeamRecord {
  return {
    name: String(row.name),
    settings: settingsOf(row.settings),
    source: row.source === 'config' ? 'config' : 'api',
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
    deletedAt: toNullableNumber(row.deleted_at),
    version: toNumber(row.version),
  };
}

function toAppSettings(row: SqlRow): AppSettingsRecord {
  return {
    name: String(row.name),
    team: row.team === null || row.team === undefined ? null : String(row.team),
    settings: settingsOf(row.settings),
    source: row.source === 'config' ? 'config' : 'api',
    createdAt: toNumber(row.created_at),
    revokedAt: toNullableNumber(row.revoked_at),
    version: toNumber(row.version),
  };
}

function toKey(row: SqlRow): KeyRecord {
  return {
    app: String(row.app),
    id: String(row.id),
    name: String(row.name),
    secretHash: String(row.secret_hash),
    createdAt: toNumber(row.created_at),
    expiresAt: toNullableNumber(row.expires_at),
    lastUsedAt: toNullableNumber(row.last_used_at),
    revokedAt: toNullableNumber(row.revoked_at),
    version: toNumber(row.version),
  };
}

function toToken(row: SqlRow): TeamTokenRecord {
  return {
    id: String(row.id),
    team: String(row.team),
    name: String(row.name),
    tokenHash: String(row.token_hash),
    createdAt: toNumber(row.created_at),
    revokedAt: toNullableNumber(row.revoked_at),
    version: toNumber(row.version),
  };
}

function toAudit(row: SqlRow): AuditEntry {
  const parse = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : null);
  return {
    id: String(row.id),
    at: toNumber(row.at),
    actor: String(row.actor),
    action: String(row.action),
    target: String(row.target),
    team: row.team === null || row.team === undefined ? null : String(row.team),
    before: parse(row.before_state),
    after: parse(row.after_state),
  };
}

const APP_COLUMNS = 'name, team, settings, source, created_at, revoked_at, version';

/** The governance store, written once for SQLite and PostgreSQL (see SqlExecutor). */
export class SqlGovernanceStore implements GovernanceStore {
  readonly #sql: SqlExecutor;

  constructor(sql: SqlExecutor) {
    this.#sql = sql;
  }

  async version(): Promise<number> {
    const rows = await this.#sql.all('SELECT version FROM governance_clock WHERE id = 1');
    return toNumber(rows[0]?.version ?? 0);
  }

  /** In one transaction, so the version answered covers exactly the rows read. */
  changesSince(since: number): Promise<GovernanceChanges> {
    return this.#sql.transaction(function* () {
      const clock = yield all('SELECT version FROM governance_clock WHERE id = 1');
      return {
        version: toNumber(clock[0]?.version ?? 0),
        teams: (yield all('SELECT * FROM teams WHERE version > ?', [since])).map(toTeam),
        apps: (yield all(`SELECT ${APP_COLUMNS} FROM apps WHERE version > ?`, [since])).map(toAppSettings),
        keys: (yield all('SELECT * FROM app_keys WHERE version > ?', [since])).map(toKey),
        tokens: (yield all('SELECT * FROM team_tokens WHERE version > ?', [since])).map(toToken),
      };
    });
  }

  async listTeams(): Promise<TeamRecord[]> {
    return (await this.#sql.all('SELECT * FROM teams WHERE deleted_at IS NULL ORDER BY name')).map(toTeam);
  }

  async findTeam(name: string): Promise<TeamRecord | undefined> {
    const rows = await this.#sql.all('SELECT * FROM teams WHERE name = ? AND deleted_at IS NULL', [name]);
    return rows[0] === undefined ? undefined : toTeam(rows[0]);
  }

  createTeam(name: string, settings: EntitySettings, source: EntitySource, at: number): Promise<TeamRecord> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      // A deleted team's row is taken over by the new team of that name.
      const changed = yield run(
        `INSERT INTO teams (name, settings, source, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET settings = excluded.settings, source = excluded.source,
           created_at = excluded.created_at, updated_at = excluded.updated_at, deleted_at = NULL,
           version = excluded.version
         WHERE teams.deleted_at IS NOT NULL`,
        [name, JSON.stringify(settings), source, at, at, version],
      );
      if (changed === 0) throw new ConflictError(`a team named '${name}' exists`);
      return { name, settings, source, createdAt: at, updatedAt: at, deletedAt: null, version };
    });
  }

  resetConfigTeam(name: string, settings: EntitySettings, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const changed = yield run(
        `INSERT INTO teams (name, settings, source, created_at, updated_at, version) VALUES (?, ?, 'config', ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET settings = excluded.settings, source = 'config',
           updated_at = excluded.updated_at, deleted_at = NULL, version = excluded.version
         WHERE teams.source = 'config' OR teams.deleted_at IS NOT NULL`,
        [name, JSON.stringify(settings), at, at, version],
      );
      return changed > 0;
    });
  }

  updateTeam(name: string, settings: EntitySettings, at: number): Promise<TeamRecord | undefined> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const rows = yield all(
        'UPDATE teams SET settings = ?, updated_at = ?, version = ? WHERE name = ? AND deleted_at IS NULL RETURNING *',
        [JSON.stringify(settings), at, version, name],
      );
      return rows[0] === undefined ? undefined : toTeam(rows[0]);
    });
  }

  deleteTeam(name: string, force: boolean, at: number): Promise<TeamDeletion> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const apps = yield all('SELECT name FROM apps WHERE team = ? AND revoked_at IS NULL', [name]);
      if (apps.length > 0 && !force) return 'has_apps';
      const deleted = yield run(
        'UPDATE teams SET deleted_at = ?, version = ? WHERE name = ? AND deleted_at IS NULL',
        [at, version, name],
      );
      if (deleted === 0) return 'not_found';
      yield run('UPDATE apps SET team = NULL, version = ? WHERE team = ?', [version, name]);
      yield run('UPDATE team_tokens SET revoked_at = ?, version = ? WHERE team = ? AND revoked_at IS NULL', [
        at,
        version,
        name,
      ]);
      return 'deleted';
    });
  }

  async listAppSettings(team?: string): Promise<AppSettingsRecord[]> {
    const rows =
      team === undefined
        ? await this.#sql.all(`SELECT ${APP_COLUMNS} FROM apps ORDER BY name`)
        : await this.#sql.all(`SELECT ${APP_COLUMNS} FROM apps WHERE team = ? ORDER BY name`, [team]);
    return rows.map(toAppSettings);
  }

  async findAppSettings(name: string): Promise<AppSettingsRecord | undefined> {
    const rows = await this.#sql.all(`SELECT ${APP_COLUMNS} FROM apps WHERE name = ?`, [name]);
    return rows[0] === undefined ? undefined : toAppSettings(rows[0]);
  }

  updateAppSettings(
    name: string,
    change: { team: string | null; settings: EntitySettings; source?: EntitySource },
  ): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      const settings = JSON.stringify(change.settings);
      const changed =
        change.source === undefined
          ? yield run(
              'UPDATE apps SET team = ?, settings = ?, version = ? WHERE name = ? AND revoked_at IS NULL',
              [change.team, settings, version, name],
            )
          : yield run(
              'UPDATE apps SET team = ?, settings = ?, source = ?, version = ? WHERE name = ? AND revoked_at IS NULL',
              [change.team, settings, change.source, version, name],
            );
      return changed > 0;
    });
  }

  async listKeys(app: string): Promise<KeyRecord[]> {
    return (await this.#sql.all('SELECT * FROM app_keys WHERE app = ? ORDER BY created_at, id', [app])).map(
      toKey,
    );
  }

  createKey(
    key: Omit<KeyRecord, 'version' | 'lastUsedAt' | 'revokedAt'>,
    maxLive: number,
  ): Promise<KeyCreation> {
    return this.#sql.transaction(function* () {
      // The clock's row lock first: two creations for one app take turns, so the count is exact.
      const version = yield* nextVersion();
      const app = yield all('SELECT 1 FROM apps WHERE name = ? AND revoked_at IS NULL', [key.app]);
      if (app.length === 0) return 'no_app';
      const live = yield all(
        'SELECT count(*) AS n FROM app_keys WHERE app = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
        [key.app, key.createdAt],
      );
      if (toNumber(live[0]?.n ?? 0) >= maxLive) return 'too_many';
      const inserted = yield run(
        `INSERT INTO app_keys (app, id, name, secret_hash, created_at, expires_at, version)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app, id) DO NOTHING`,
        [key.app, key.id, key.name, key.secretHash, key.createdAt, key.expiresAt, version],
      );
      return inserted === 0 ? 'exists' : 'created';
    });
  }

  revokeKey(app: string, id: string, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      return (
        (yield run(
          'UPDATE app_keys SET revoked_at = ?, version = ? WHERE app = ? AND id = ? AND revoked_at IS NULL',
          [at, version, app, id],
        )) > 0
      );
    });
  }

  endKeyBy(app: string, id: string, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      return (
        (yield run(
          `UPDATE app_keys SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > ? THEN ? ELSE expires_at END,
             version = ? WHERE app = ? AND id = ? AND revoked_at IS NULL`,
          [at, at, version, app, id],
        )) > 0
      );
    });
  }

  async touchKeys(uses: readonly { app: string; id: string; minute: number }[]): Promise<void> {
    if (uses.length === 0) return;
    // No version: the last use is read by the admin API from the store, never from the caches.
    await this.#sql.transaction(function* () {
      for (const use of uses)
        yield run(
          'UPDATE app_keys SET last_used_at = ? WHERE app = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
          [use.minute, use.app, use.id, use.minute],
        );
    });
  }

  createTeamToken(token: Omit<TeamTokenRecord, 'version' | 'revokedAt'>): Promise<void> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      yield run(
        'INSERT INTO team_tokens (id, team, name, token_hash, created_at, version) VALUES (?, ?, ?, ?, ?, ?)',
        [token.id, token.team, token.name, token.tokenHash, token.createdAt, version],
      );
    });
  }

  async listTeamTokens(team: string): Promise<TeamTokenRecord[]> {
    return (
      await this.#sql.all('SELECT * FROM team_tokens WHERE team = ? ORDER BY created_at, id', [team])
    ).map(toToken);
  }

  revokeTeamToken(team: string, id: string, at: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const version = yield* nextVersion();
      return (
        (yield run(
          'UPDATE team_tokens SET revoked_at = ?, version = ? WHERE team = ? AND id = ? AND revoked_at IS NULL',
          [at, version, team, id],
        )) > 0
      );
    });
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.#sql.run(
      'INSERT INTO audit_log (id, at, actor, action, target, team, before_state, after_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        entry.id,
        entry.at,
        entry.actor,
        entry.action,
        entry.target,
        entry.team,
        entry.before === undefined ? null : JSON.stringify(entry.before),
        entry.after === undefined ? null : JSON.stringify(entry.after),
      ],
    );
  }

  async listAudit(query: { team?: string; before?: number; limit: number }): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.team !== undefined) {
      where.push('team = ?');
      params.push(query.team);
    }
    if (query.before !== undefined) {
      where.push('at < ?');
      params.push(query.before);
    }
    const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
    const rows = await this.#sql.all(`SELECT * FROM audit_log ${clause} ORDER BY at DESC, id DESC LIMIT ?`, [
      ...params,
      query.limit,
    ]);
    return rows.map(toAudit);
  }

  deleteAuditBefore(cutoff: number): Promise<number> {
    return this.#sql.run('DELETE FROM audit_log WHERE at < ?', [cutoff]);
  }
}
