import { randomBytes } from 'node:crypto';
import { ApiError } from '../../platform/errors.ts';
import { generateSecret, hashSecret } from '../../platform/secret-hash.ts';
import { type AuditEntry, ConflictError, type GovernanceStore } from '../../storage/governance-ports.ts';
import { AppExistsError, type AppStore } from '../../storage/ports.ts';
import { type AdminActor, actorName, assertFullAdmin, assertTeamScope } from './admin-actor.ts';
import { appView, teamView } from './entity-views.ts';
import { assertName, patchSettings, type SettingsPatch } from './settings-input.ts';

export interface GovernanceAdminDeps {
  store: GovernanceStore;
  apps: AppStore;
  now: () => number;
  /** Applies the change to this instance's snapshot at once (others read it within a second). */
  refresh: () => Promise<void>;
}

export type AppInput = SettingsPatch & { name?: unknown; team?: string | null };

/**
 * Teams and apps, changed by the admin API and the CLI alike (CONTRACT 6.5): every change checked
 * against the actor's scope, validated, written, audited (before and after, never a secret) and
 * applied to this instance's snapshot before it answers. Keys and team tokens: key-admin.ts.
 */
export class GovernanceAdmin {
  readonly deps: GovernanceAdminDeps;

  constructor(deps: GovernanceAdminDeps) {
    this.deps = deps;
  }

  async listTeams(actor: AdminActor) {
    assertFullAdmin(actor, 'list every team');
    return (await this.deps.store.listTeams()).map((team) => teamView(team));
  }

  async showTeam(actor: AdminActor, name: string) {
    assertTeamScope(actor, name, `read team '${name}'`);
    const team = await this.deps.store.findTeam(name);
    if (team === undefined) throw notFound('team', name);
    const apps = (await this.deps.store.listAppSettings(name)).filter((a) => a.revokedAt === null);
    return teamView(
      team,
      apps.map((a) => a.name),
    );
  }

  async createTeam(actor: AdminActor, input: SettingsPatch & { name?: unknown }) {
    assertFullAdmin(actor, 'create a team');
    assertName(input.name, '/name', 'a team name');
    const settings = patchSettings({}, input);
    try {
      const team = await this.deps.store.createTeam(input.name, settings, 'api', this.deps.now());
      await this.#changed(actor, 'team.create', `team:${team.name}`, team.name, null, teamView(team));
      return teamView(team);
    } catch (error) {
      if (error instanceof ConflictError) throw new ApiError('conflict', error.message);
      throw error;
    }
  }

  async updateTeam(actor: AdminActor, name: string, patch: SettingsPatch) {
    assertFullAdmin(actor, "change a team's limits, budgets or lists");
    const before = await this.deps.store.findTeam(name);
    if (before === undefined) throw notFound('team', name);
    const settings = patchSettings(before.settings, patch);
    const after = await this.deps.store.updateTeam(name, settings, this.deps.now());
    if (after === undefined) throw notFound('team', name);
    await this.#changed(actor, 'team.update', `team:${name}`, name, teamView(before), teamView(after));
    return teamView(after);
  }

  async deleteTeam(actor: AdminActor, name: string, force: boolean) {
    assertFullAdmin(actor, 'delete a team');
    const before = await this.deps.store.findTeam(name);
    if (before === undefined) throw notFound('team', name);
    const outcome = await this.deps.store.deleteTeam(name, force, this.deps.now());
    if (outcome === 'not_found') throw notFound('team', name);
    if (outcome === 'has_apps')
      throw new ApiError('conflict', `team '${name}' has apps; move them first, or delete with ?force=true`);
    await this.#changed(actor, 'team.delete', `team:${name}`, name, teamView(before), null);
  }

  async listApps(actor: AdminActor) {
    const team = actor.kind === 'team' ? actor.team : undefined;
    return (await this.deps.store.listAppSettings(team)).filter((a) => a.revokedAt === null).map(appView);
  }

  async showApp(actor: AdminActor, name: string) {
    const app = await this.findApp(actor, name, 'read');
    return appView(app);
  }

  /** Creates an app with its first key, whose secret is answered here once. */
  async createApp(actor: AdminActor, input: AppInput) {
    assertName(input.name, '/name', 'an app name');
    const name = input.name;
    const team = input.team ?? (actor.kind === 'team' ? actor.team : null);
    assertTeamScope(
      actor,
      team,
      team === null ? 'create an app outside its team' : `create an app in team '${team}'`,
    );
    if (team !== null) await this.#assertTeam(team);
    const settings = patchSettings({}, input);
    const secret = generateSecret();
    try {
      await this.deps.apps.createApp(name, await hashSecret(secret), this.deps.now());
    } catch (error) {
      if (error instanceof AppExistsError) throw new ApiError('conflict', `an app named '${name}' exists`);
      throw error;
    }
    await this.deps.store.updateAppSettings(name, { team, settings, source: 'api' });
    const app = await this.findApp(actor, name, 'read');
    await this.#changed(actor, 'app.create', `app:${name}`, team, null, appView(app));
    return { app: appView(app), key: { id: 'primary', name: 'primary', secret: `${name}:${secret}` } };
  }

  async updateApp(actor: AdminActor, name: string, patch: SettingsPatch & { team?: string | null }) {
    const before = await this.findApp(actor, name, 'change');
    const team = patch.team === undefined ? before.team : patch.team;
    if (team !== before.team) {
      assertTeamScope(actor, team, 'move an app to another team');
      if (team !== null) await this.#assertTeam(team);
    }
    const settings = patchSettings(before.settings, patch);
    if (!(await this.deps.store.updateAppSettings(name, { team, settings }))) throw notFound('app', name);
    const after = await this.findApp(actor, name, 'read');
    await this.#changed(
      actor,
      'app.update',
      `app:${name}`,
      team ?? before.team,
      appView(before),
      appView(after),
    );
    return appView(after);
  }

  async deleteApp(actor: AdminActor, name: string) {
    const before = await this.findApp(actor, name, 'delete');
    if (!(await this.deps.apps.revokeApp(name, this.deps.now()))) throw notFound('app', name);
    await this.#changed(actor, 'app.delete', `app:${name}`, before.team, appView(before), null);
  }

  /** An active app the actor may see, or the 404 (outside a team token's team: the 403). */
  async findApp(actor: AdminActor, name: string, what: string) {
    const app = await this.deps.store.findAppSettings(name);
    if (app === undefined || app.revokedAt !== null) {
      // A team token learns nothing of apps outside its team, not even whether they exist.
      assertTeamScope(actor, null, `${what} app '${name}'`);
      throw notFound('app', name);
    }
    assertTeamScope(actor, app.team, `${what} app '${name}'`);
    return app;
  }

  /** Audits a change and applies it to this instance's snapshot. */
  async changed(
    actor: AdminActor,
    entry: Pick<AuditEntry, 'action' | 'target' | 'team' | 'before' | 'after'>,
  ) {
    await this.#changed(actor, entry.action, entry.target, entry.team, entry.before, entry.after);
  }

  async #changed(
    actor: AdminActor,
    action: string,
    target: string,
    team: string | null,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    await this.deps.store.appendAudit({
      id: `aud_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`,
      at: this.deps.now(),
      actor: actorName(actor),
      action,
      target,
      team,
      before,
      after,
    });
    await this.deps.refresh();
  }

  async #assertTeam(team: string): Promise<void> {
    if ((await this.deps.store.findTeam(team)) === undefined)
      throw new ApiError('invalid_request', `no team named '${team}'`, {
        details: [{ path: '/team', message: `no team named '${team}'` }],
      });
  }
}

export function notFound(what: string, name: string): ApiError {
  return new ApiError('not_found', `no ${what} named '${name}'`);
}
