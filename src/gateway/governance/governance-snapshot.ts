import type { AppLimits } from '../../config/config-types.ts';
import type {
  AppSettingsRecord,
  EntitySettings,
  GovernanceChanges,
  KeyRecord,
  TeamRecord,
  TeamTokenRecord,
} from '../../storage/governance-ports.ts';
import type { KeyEntry } from '../auth/credential-verifier.ts';

export type { KeyEntry };

export interface TeamPolicy {
  name: string;
  limits: AppLimits;
  models: readonly string[] | undefined;
  mcpAllow: readonly string[] | undefined;
}

/** An app as the request path sees it: its keys (a new array whenever they change), team and lists. */
export interface AppPolicy {
  name: string;
  team: string | undefined;
  /** Limits set through the admin API (or the file's reset); undefined: the file's `limits`. */
  limits: AppLimits | undefined;
  models: readonly string[] | undefined;
  mcpAllow: readonly string[] | undefined;
  keys: readonly KeyEntry[];
}

/**
 * What every instance holds of the governance store: active apps with their keys, live teams and
 * team tokens, brought up to date by applying the changes read since the last version. Reads are
 * synchronous map lookups, so the request path never waits for the store.
 */
export class GovernanceSnapshot {
  version = 0;
  readonly #apps = new Map<string, AppPolicy>();
  readonly #keys = new Map<string, Map<string, KeyEntry>>();
  readonly #teams = new Map<string, TeamPolicy>();
  readonly #tokens = new Map<string, TeamTokenRecord>();
  /** Apps' rows as read, kept for apps whose keys change while their row does not. */
  readonly #appRows = new Map<string, AppSettingsRecord>();

  app(name: string): AppPolicy | undefined {
    return this.#apps.get(name);
  }

  team(name: string): TeamPolicy | undefined {
    return this.#teams.get(name);
  }

  /** The team policy of an app, when it is in one that exists. */
  teamOf(app: string): TeamPolicy | undefined {
    const team = this.#apps.get(app)?.team;
    return team === undefined ? undefined : this.#teams.get(team);
  }

  /** Live teams. */
  teams(): IterableIterator<TeamPolicy> {
    return this.#teams.values();
  }

  /**
   * The team an app was last in, deleted apps included (their rows stay in the store), for the
   * admin API's spend by team: a deleted app's past spend stays its team's.
   */
  teamOfApp(app: string): string | undefined {
    return this.#appRows.get(app)?.team ?? undefined;
  }

  /** Live team tokens (revoked ones and those of deleted teams are gone). */
  tokens(): IterableIterator<TeamTokenRecord> {
    return this.#tokens.values();
  }

  get appCount(): number {
    return this.#apps.size;
  }

  apply(changes: GovernanceChanges): void {
    for (const team of changes.teams) this.#applyTeam(team);
    const touched = new Set<string>();
    for (const row of changes.apps) {
      this.#appRows.set(row.name, row);
      touched.add(row.name);
    }
    for (const key of changes.keys) {
      this.#applyKey(key);
      touched.add(key.app);
    }
    for (const name of touched) this.#rebuildApp(name);
    for (const token of changes.tokens) {
      if (token.revokedAt === null) this.#tokens.set(token.id, token);
      else this.#tokens.delete(token.id);
    }
    this.version = Math.max(this.version, changes.version);
  }

  #applyTeam(team: TeamRecord): void {
    if (team.deletedAt !== null) {
      this.#teams.delete(team.name);
      return;
    }
    const settings = team.settings;
    this.#teams.set(team.name, {
      name: team.name,
      limits: (settings.limits ?? {}) as AppLimits,
      models: settings.models,
      mcpAllow: settings.mcp?.allow,
    });
  }

  #applyKey(key: KeyRecord): void {
    let keys = this.#keys.get(key.app);
    if (keys === undefined) {
      keys = new Map();
      this.#keys.set(key.app, keys);
    }
    keys.set(key.id, {
      id: key.id,
      name: key.name,
      secretHash: key.secretHash,
      expiresAt: key.expiresAt,
      revokedAt: key.revokedAt,
    });
  }

  #rebuildApp(name: string): void {
    const row = this.#appRows.get(name);
    if (row === undefined || row.revokedAt !== null) {
      this.#apps.delete(name);
      return;
    }
    const settings: EntitySettings = row.settings;
    this.#apps.set(name, {
      name,
      team: row.team ?? undefined,
      limits: settings.limits as AppLimits | undefined,
      models: settings.models,
      mcpAllow: settings.mcp?.allow,
      keys: [...(this.#keys.get(name)?.values() ?? [])],
    });
  }
}
