import { ConfigError } from '../../config/config-error.ts';
import type { Config } from '../../config/config-types.ts';
import type { EntitySettings, GovernanceStore } from '../../storage/governance-ports.ts';

/**
 * Resets what the configuration declares (CONTRACT 6.5): its `teams` (a team of that name made
 * through the API is left alone, and a warning is the caller's), and each of its `apps`' team,
 * model allow list, MCP allow list and limits (`limits.apps`). Apps, teams and keys made through
 * the API are not touched, nor keys made through the API for an app of the file. An app naming a
 * team that exists neither in the file nor in the store stops start-up.
 */
export async function applyGovernanceSeeds(
  config: Config,
  store: GovernanceStore,
  now: number,
): Promise<{ teamsKeptFromApi: string[] }> {
  const kept: string[] = [];
  for (const team of config.teams) {
    const settings: EntitySettings = {};
    if (team.limits !== undefined) settings.limits = team.limits;
    if (team.models !== undefined) settings.models = team.models;
    if (team.mcp !== undefined) settings.mcp = team.mcp;
    if (team.metadata !== undefined) settings.metadata = team.metadata;
    if (!(await store.resetConfigTeam(team.name, settings, now))) kept.push(team.name);
  }
  // An app may be listed twice (the file and GATEWAY_APPS): what any entry sets holds.
  const apps = new Map<
    string,
    { name: string; team?: string; models?: string[]; mcp?: { allow: string[] } }
  >();
  for (const app of config.apps) {
    const merged = { ...apps.get(app.name), name: app.name };
    for (const field of ['team', 'models'] as const)
      if (app[field] !== undefined) Object.assign(merged, { [field]: app[field] });
    // MCP allow entries add up across the entries, as the file's MCP settings read them.
    if (app.mcp !== undefined)
      merged.mcp = { allow: [...new Set([...(merged.mcp?.allow ?? []), ...app.mcp.allow])] };
    apps.set(app.name, merged);
  }
  for (const app of apps.values()) {
    if (app.team !== undefined && (await store.findTeam(app.team)) === undefined)
      throw new ConfigError(`apps '${app.name}' team`, `no team '${app.team}' is declared (teams) or stored`);
    const settings: EntitySettings = {};
    const limits = Object.hasOwn(config.limits.apps, app.name) ? config.limits.apps[app.name] : undefined;
    if (limits !== undefined) settings.limits = limits;
    if (app.models !== undefined) settings.models = app.models;
    if (app.mcp !== undefined) settings.mcp = app.mcp;
    await store.updateAppSettings(app.name, { team: app.team ?? null, settings, source: 'config' });
  }
  return { teamsKeptFromApi: kept };
}
