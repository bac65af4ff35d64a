/**
 * The governance store (CONTRACT 6.5, migration 009): teams, the settings of apps, their keys,
 * team admin tokens and the audit log, on SQLite and PostgreSQL alike. Settings are kept as JSON
 * the gateway's governance module validates; the store only keeps them and orders every change by
 * a version, so each instance can read just what changed since it last looked.
 */

/** Where an entity comes from: the YAML file (reset to it at start) or the admin API / CLI. */
export type EntitySource = 'config' | 'api';

/** What a team or an app may set beside its name; every part optional. */
export interface EntitySettings {
  /** The app limits' fields (AppLimits), plus `perEndUser`. */
  limits?: Record<string, unknown>;
  /** Model allow list: patterns over `slot/model`, bare names, routes and tasks. */
  models?: string[];
  mcp?: { allow: string[] };
  metadata?: Record<string, string>;
}

export interface TeamRecord {
  name: string;
  settings: EntitySettings;
  source: EntitySource;
  createdAt: number;
  updatedAt: number;
  /** Set on a deleted team (kept so every instance learns of it by its version). */
  deletedAt: number | null;
  version: number;
}

export interface AppSettingsRecord {
  name: string;
  team: string | null;
  settings: EntitySettings;
  source: EntitySource;
  createdAt: number;
  revokedAt: number | null;
  version: number;
}

export interface KeyRecord {
  app: string;
  id: string;
  name: string;
  /** As AppRecord's: never the secret. */
  secretHash: string;
  createdAt: number;
  expiresAt: number | null;
  /** Epoch ms of the minute it was last used. */
  lastUsedAt: number | null;
  revokedAt: number | null;
  version: number;
}

export interface TeamTokenRecord {
  id: string;
  team: string;
  name: string;
  tokenHash: string;
  createdAt: number;
  revokedAt: number | null;
  version: number;
}

export interface AuditEntry {
  id: string;
  at: number;
  /** `admin`, or `team-token:<id>`, or `cli`. */
  actor: string;
  /** `team.create`, `app.update`, `key.rotate`… */
  action: string;
  /** `team:<name>`, `app:<name>`, `key:<app>/<id>`, `token:<id>`. */
  target: string;
  team: string | null;
  before: unknown;
  after: unknown;
}

/** Every row written after `since` (all rows for 0), and the version they bring the reader to. */
export interface GovernanceChanges {
  version: number;
  teams: TeamRecord[];
  apps: AppSettingsRecord[];
  keys: KeyRecord[];
  tokens: TeamTokenRecord[];
}

export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

export type KeyCreation = 'created' | 'no_app' | 'too_many' | 'exists';
export type TeamDeletion = 'deleted' | 'not_found' | 'has_apps';

export interface GovernanceStore {
  /** The version of the latest change. */
  version(): Promise<number>;
  changesSince(version: number): Promise<GovernanceChanges>;

  listTeams(): Promise<TeamRecord[]>;
  findTeam(name: string): Promise<TeamRecord | undefined>;
  /** Throws ConflictError when a team of that name exists. */
  createTeam(name: string, settings: EntitySettings, source: EntitySource, at: number): Promise<TeamRecord>;
  /** Creates or replaces a team declared by the configuration (never one the API made: false then). */
  resetConfigTeam(name: string, settings: EntitySettings, at: number): Promise<boolean>;
  /** Replaces its settings; undefined for an unknown team. */
  updateTeam(name: string, settings: EntitySettings, at: number): Promise<TeamRecord | undefined>;
  /** With `force`, its apps leave it; without, a team with apps is not deleted. */
  deleteTeam(name: string, force: boolean, at: number): Promise<TeamDeletion>;

  /** Active and revoked apps with their team and settings. */
  listAppSettings(team?: string): Promise<AppSettingsRecord[]>;
  findAppSettings(name: string): Promise<AppSettingsRecord | undefined>;
  /** Sets team, settings and source of an existing app; false for an unknown or revoked app. */
  updateAppSettings(
    name: string,
    change: { team: string | null; settings: EntitySettings; source?: EntitySource },
  ): Promise<boolean>;

  listKeys(app: string): Promise<KeyRecord[]>;
  /** Adds a key unless the app is unknown or revoked, or holds `maxLive` keys not revoked or expired. */
  createKey(
    key: Omit<KeyRecord, 'version' | 'lastUsedAt' | 'revokedAt'>,
    maxLive: number,
  ): Promise<KeyCreation>;
  /** Revokes a key; false when it is unknown or already revoked. */
  revokeKey(app: string, id: string, at: number): Promise<boolean>;
  /** Sets when a key ends (rotation's grace period), never later than it already ends. */
  endKeyBy(app: string, id: string, at: number): Promise<boolean>;
  /** Notes keys' last use (minutes, epoch ms); a batch in one write, never moving a time back. */
  touchKeys(uses: readonly { app: string; id: string; minute: number }[]): Promise<void>;

  createTeamToken(token: Omit<TeamTokenRecord, 'version' | 'revokedAt'>): Promise<void>;
  listTeamTokens(team: string): Promise<TeamTokenRecord[]>;
  revokeTeamToken(team: string, id: string, at: number): Promise<boolean>;

  appendAudit(entry: AuditEntry): Promise<void>;
  /** Newest first; `team` keeps a team's entries only; `before` pages by time. */
  listAudit(query: { team?: string; before?: number; limit: number }): Promise<AuditEntry[]>;
  /** Deletes entries older than `cutoff` (the ledger's retention); how many went. */
  deleteAuditBefore(cutoff: number): Promise<number>;
}
