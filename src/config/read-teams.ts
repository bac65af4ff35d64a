import { ConfigError } from './config-error.ts';
import type { AppSeed, TeamSeed } from './config-types.ts';

/**
 * The file's `teams` (CONTRACT 6.5): each name once. An app's `team` may name a team of the file
 * or one made through the admin API; start-up checks the latter against the store.
 */
export function readTeams(
  teams: readonly TeamSeed[] | undefined,
  apps: readonly AppSeed[] | undefined,
): TeamSeed[] {
  const seen = new Set<string>();
  for (const [index, team] of (teams ?? []).entries()) {
    if (seen.has(team.name))
      throw new ConfigError(`teams[${index}]`, `team '${team.name}' is declared twice`);
    seen.add(team.name);
  }
  for (const app of apps ?? []) {
    if (app.team !== undefined && app.team.length > 64)
      throw new ConfigError(`apps '${app.name}' team`, 'must be at most 64 characters');
  }
  return [...(teams ?? [])];
}
