import type {
  AppSettingsRecord,
  AuditEntry,
  KeyRecord,
  TeamRecord,
  TeamTokenRecord,
} from '../../storage/governance-ports.ts';

/*
 * What the admin API, the CLI and the audit say of each entity: names, settings and times, never
 * a secret or its hash. The audit's before and after are these views, so no secret can reach it.
 */

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function teamView(team: TeamRecord, apps?: readonly string[]) {
  return {
    name: team.name,
    limits: team.settings.limits ?? {},
    models: team.settings.models ?? null,
    mcp: team.settings.mcp ?? null,
    metadata: team.settings.metadata ?? {},
    source: team.source,
    createdAt: iso(team.createdAt),
    updatedAt: iso(team.updatedAt),
    ...(apps === undefined ? {} : { apps }),
  };
}

export function appView(app: AppSettingsRecord) {
  return {
    name: app.name,
    team: app.team,
    limits: app.settings.limits ?? null,
    models: app.settings.models ?? null,
    mcp: app.settings.mcp ?? null,
    metadata: app.settings.metadata ?? {},
    source: app.source,
    status: app.revokedAt === null ? 'active' : 'deleted',
    createdAt: iso(app.createdAt),
  };
}

export function keyStatus(key: Pick<KeyRecord, 'expiresAt' | 'revokedAt'>, now: number): string {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

export function keyView(key: KeyRecord, now: number) {
  return {
    id: key.id,
    app: key.app,
    name: key.name,
    status: keyStatus(key, now),
    createdAt: iso(key.createdAt),
    expiresAt: iso(key.expiresAt),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
  };
}

export function tokenView(token: TeamTokenRecord) {
  return {
    id: token.id,
    team: token.team,
    name: token.name,
    createdAt: iso(token.createdAt),
    revokedAt: iso(token.revokedAt),
  };
}

export function auditView(entry: AuditEntry) {
  return { ...entry, at: iso(entry.at) };
}
