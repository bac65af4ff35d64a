import { createHash, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../platform/constant-time.ts';
import { ApiError } from '../../platform/errors.ts';
import { generateSecret, hashSecret } from '../../platform/secret-hash.ts';
import type { KeyRecord } from '../../storage/governance-ports.ts';
import { type AdminActor, assertFullAdmin, assertTeamScope } from './admin-actor.ts';
import { auditView, keyView, tokenView } from './entity-views.ts';
import { type GovernanceAdmin, notFound } from './governance-admin.ts';
import type { GovernanceSnapshot } from './governance-snapshot.ts';
import { invalid } from './settings-input.ts';

/** An app holds at most this many keys that are neither revoked nor ended (CONTRACT 6.5). */
export const MAX_KEYS_PER_APP = 20;
/** Rotation's default grace period: the old key lives a day (CONTRACT 6.9). */
export const DEFAULT_GRACE_SECONDS = 86_400;
const MAX_GRACE_SECONDS = 90 * 86_400;
const KEY_NAME = /^[\x20-\x7e]{1,64}$/;

function newKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}

function checkKeyName(name: unknown): string {
  if (name === undefined) return 'key';
  if (typeof name !== 'string' || !KEY_NAME.test(name))
    throw invalid([{ path: '/name', message: 'a key name is 1-64 printable characters' }]);
  return name;
}

/** Keys of apps, and team admin tokens: made, listed, rotated and revoked, each change audited. */
export class KeyAdmin {
  readonly #admin: GovernanceAdmin;

  constructor(admin: GovernanceAdmin) {
    this.#admin = admin;
  }

  async listKeys(actor: AdminActor, app: string) {
    await this.#admin.findApp(actor, app, 'read the keys of');
    const now = this.#admin.deps.now();
    return (await this.#admin.deps.store.listKeys(app)).map((key) => keyView(key, now));
  }

  /** A new key; its secret (`<app>:<secret>`) is answered here once and stored hashed. */
  async createKey(actor: AdminActor, app: string, input: { name?: unknown; expiresAt?: unknown }) {
    const settings = await this.#admin.findApp(actor, app, 'make a key for');
    const name = checkKeyName(input.name);
    const now = this.#admin.deps.now();
    const expiresAt = readExpiry(input.expiresAt, now);
    const made = await this.#insert(app, name, expiresAt);
    await this.#admin.changed(actor, {
      action: 'key.create',
      target: `key:${app}/${made.key.id}`,
      team: settings.team,
      before: null,
      after: keyView(made.key, now),
    });
    return { ...keyView(made.key, now), secret: made.secret };
  }

  async revokeKey(actor: AdminActor, app: string, id: string) {
    const settings = await this.#admin.findApp(actor, app, 'revoke a key of');
    const before = await this.#find(app, id);
    const now = this.#admin.deps.now();
    if (!(await this.#admin.deps.store.revokeKey(app, id, now)))
      throw new ApiError('conflict', `key '${id}' of app '${app}' is already revoked`);
    await this.#admin.changed(actor, {
      action: 'key.revoke',
      target: `key:${app}/${id}`,
      team: settings.team,
      before: keyView(before, now),
      after: keyView({ ...before, revokedAt: now }, now),
    });
  }

  /**
   * A new key of the same name; the old one ends after the grace period (0: at once), so clients
   * can move over one by one (CONTRACT 6.9).
   */
  async rotateKey(actor: AdminActor, app: string, id: string, input: { gracePeriodSeconds?: unknown }) {
    const settings = await this.#admin.findApp(actor, app, 'rotate a key of');
    const old = await this.#find(app, id);
    const now = this.#admin.deps.now();
    if (keyView(old, now).status !== 'active')
      throw new ApiError(
        'conflict',
        `key '${id}' of app '${app}' is ${keyView(old, now).status}; make a new key instead`,
      );
    const grace = input.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
    if (!Number.isInteger(grace) || (grace as number) < 0 || (grace as number) > MAX_GRACE_SECONDS)
      throw invalid([
        {
          path: '/gracePeriodSeconds',
          message: `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`,
        },
      ]);
    // The old key is ended first: a rotation never leaves one more live key than before.
    await this.#admin.deps.store.endKeyBy(app, id, now + (grace as number) * 1000);
    const made = await this.#insert(
      app,
      old.name,
      old.expiresAt === null ? null : Math.max(old.expiresAt, now + 1),
    );
    await this.#admin.changed(actor, {
      action: 'key.rotate',
      target: `key:${app}/${id}`,
      team: settings.team,
      before: keyView(old, now),
      after: {
        ended: keyView({ ...old, expiresAt: now + (grace as number) * 1000 }, now),
        new: keyView(made.key, now),
      },
    });
    return {
      ...keyView(made.key, now),
      secret: made.secret,
      previous: { id, endsAt: new Date(now + (grace as number) * 1000).toISOString() },
    };
  }

  async createTeamToken(actor: AdminActor, team: string, input: { name?: unknown }) {
    assertFullAdmin(actor, 'make team admin tokens');
    if ((await this.#admin.deps.store.findTeam(team)) === undefined) throw notFound('team', team);
    const name = checkKeyName(input.name);
    const id = `tok_${randomBytes(6).toString('hex')}`;
    const token = `gwt_${id}_${randomBytes(32).toString('base64url')}`;
    const createdAt = this.#admin.deps.now();
    await this.#admin.deps.store.createTeamToken({
      id,
      team,
      name,
      tokenHash: tokenDigest(token),
      createdAt,
    });
    const view = tokenView({ id, team, name, tokenHash: '', createdAt, revokedAt: null, version: 0 });
    await this.#admin.changed(actor, {
      action: 'token.create',
      target: `token:${id}`,
      team,
      before: null,
      after: view,
    });
    return { ...view, token };
  }

  async listTeamTokens(actor: AdminActor, team: string) {
    assertFullAdmin(actor, 'list team admin tokens');
    return (await this.#admin.deps.store.listTeamTokens(team)).map(tokenView);
  }

  async revokeTeamToken(actor: AdminActor, team: string, id: string) {
    assertFullAdmin(actor, 'revoke team admin tokens');
    if (!(await this.#admin.deps.store.revokeTeamToken(team, id, this.#admin.deps.now())))
      throw new ApiError('not_found', `no live token '${id}' of team '${team}'`);
    await this.#admin.changed(actor, {
      action: 'token.revoke',
      target: `token:${id}`,
      team,
      before: { id },
      after: null,
    });
  }

  async listAudit(actor: AdminActor, query: { before?: number; limit: number; team?: string }) {
    if (actor.kind === 'team') {
      assertTeamScope(actor, query.team ?? actor.team, "read another team's audit");
      query.team = actor.team;
    }
    return (await this.#admin.deps.store.listAudit(query)).map(auditView);
  }

  async #find(app: string, id: string): Promise<KeyRecord> {
    const key = (await this.#admin.deps.store.listKeys(app)).find((k) => k.id === id);
    if (key === undefined) throw new ApiError('not_found', `no key '${id}' of app '${app}'`);
    return key;
  }

  async #insert(
    app: string,
    name: string,
    expiresAt: number | null,
  ): Promise<{ key: KeyRecord; secret: string }> {
    const secret = generateSecret();
    const key = {
      app,
      id: newKeyId(),
      name,
      secretHash: await hashSecret(secret),
      createdAt: this.#admin.deps.now(),
      expiresAt,
    };
    const outcome = await this.#admin.deps.store.createKey(key, MAX_KEYS_PER_APP);
    if (outcome === 'no_app') throw notFound('app', app);
    if (outcome === 'too_many')
      throw new ApiError('conflict', `app '${app}' holds ${MAX_KEYS_PER_APP} live keys; revoke one first`);
    if (outcome === 'exists') throw new ApiError('conflict', 'key id taken; try again');
    return { key: { ...key, lastUsedAt: null, revokedAt: null, version: 0 }, secret: `${app}:${secret}` };
  }
}

function readExpiry(value: unknown, now: number): number | null {
  if (value === undefined || value === null) return null;
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at) || at <= now || at > now + 10 * 365 * 86_400_000)
    throw invalid([
      { path: '/expiresAt', message: 'must be an RFC 3339 date-time in the future, within 10 years' },
    ]);
  return at;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** The team a team admin token belongs to, checked in constant time; undefined when it is none. */
export function teamOfToken(
  snapshot: GovernanceSnapshot,
  presented: string,
): { team: string; tokenId: string } | undefined {
  const match = /^gwt_(tok_[0-9a-f]{12})_[A-Za-z0-9_-]{43}$/.exec(presented);
  if (match === null) return undefined;
  const digest = tokenDigest(presented);
  for (const token of snapshot.tokens()) {
    if (token.id === match[1] && constantTimeEqual(token.tokenHash, digest))
      return { team: token.team, tokenId: token.id };
  }
  return undefined;
}
