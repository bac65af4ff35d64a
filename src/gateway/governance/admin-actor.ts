import { ApiError } from '../../platform/errors.ts';

/**
 * Who makes a change (CONTRACT 6.5): the admin token (or a dashboard session), a team admin token,
 * or the CLI on the gateway's own machine. A team token acts on its team's apps and keys and reads
 * its team's usage and audit only; anything else is a 403.
 */
export type AdminActor =
  | { kind: 'admin' }
  | { kind: 'cli' }
  | { kind: 'team'; team: string; tokenId: string };

export function actorName(actor: AdminActor): string {
  return actor.kind === 'team' ? `team-token:${actor.tokenId}` : actor.kind;
}

/** Only the admin token (or the CLI) may do this. */
export function assertFullAdmin(actor: AdminActor, what: string): void {
  if (actor.kind === 'team')
    throw new ApiError('forbidden', `a team admin token cannot ${what}; the admin token is required`);
}

/** A team token may act on its own team only; `team` null is no team at all. */
export function assertTeamScope(actor: AdminActor, team: string | null, what: string): void {
  if (actor.kind === 'team' && actor.team !== team)
    throw new ApiError('forbidden', `a team admin token of team '${actor.team}' cannot ${what}`);
}
