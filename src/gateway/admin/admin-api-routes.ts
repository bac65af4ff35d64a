import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { AdminActor } from '../governance/admin-actor.ts';
import type { GovernanceAdmin } from '../governance/governance-admin.ts';
import type { GovernanceSnapshot } from '../governance/governance-snapshot.ts';
import { type KeyAdmin, teamOfToken } from '../governance/key-admin.ts';
import type { AdminCredentials } from './admin-credentials.ts';
import type { AdminReports } from './admin-reports.ts';
import type { AdminSessions } from './admin-sessions.ts';
import { registerGovernanceRoutes } from './governance-routes.ts';
import type { SessionCookie } from './session-cookie.ts';

const MAX_AUTHORIZATION = 1024;

/** What the admin routes check a caller with: the token, the dashboard's sessions and their cookie. */
export interface AdminAccess {
  credentials: AdminCredentials;
  sessions: AdminSessions;
  cookie: SessionCookie;
}

/**
 * Who may read the admin API: the admin token as a Bearer credential, or a dashboard session not
 * signed out. Checking a session reads the database; when it cannot answer, this rejects with its
 * DependencyUnavailableError (a 503).
 */
export async function isAdmin(request: FastifyRequest, access: AdminAccess, now: number): Promise<boolean> {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length <= MAX_AUTHORIZATION) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match !== null) return access.credentials.matchesToken(match[1] as string);
  }
  const session = access.cookie.read(request.headers.cookie);
  return session !== undefined && (await access.sessions.isSignedIn(session, now));
}

type QueryOf = { Querystring: Record<string, string | undefined> };

/** The admin API's governance: its services and the snapshot team tokens are checked against. */
export interface AdminGovernance {
  admin: GovernanceAdmin;
  keys: KeyAdmin;
  snapshot: GovernanceSnapshot;
}

const actors = new WeakMap<FastifyRequest, AdminActor>();

/** The admin token (or a session) is the admin; a team admin token its team's; else undefined. */
async function actorOf(
  request: FastifyRequest,
  access: AdminAccess,
  governance: AdminGovernance,
  now: number,
): Promise<AdminActor | undefined> {
  if (await isAdmin(request, access, now)) return { kind: 'admin' };
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string' || authorization.length > MAX_AUTHORIZATION) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  const token = match === null ? undefined : teamOfToken(governance.snapshot, match[1] as string);
  return token === undefined ? undefined : { kind: 'team', ...token };
}

/**
 * A team token reads usage of its team only: one of its apps (`app=`) or the whole team
 * (`team=<its team>`); the latency, refusal, failure, app, budget and guardrail reports span every
 * app and are the admin's.
 */
function scopeReport(
  actor: AdminActor,
  path: string,
  query: Record<string, string | undefined>,
  snapshot: GovernanceSnapshot,
): void {
  if (actor.kind !== 'team') return;
  const app = query.app === undefined ? undefined : snapshot.app(query.app);
  if (path === '/usage' && app !== undefined && app.team === actor.team) return;
  if (path === '/usage' && query.app === undefined && query.team === actor.team) return;
  throw new ApiError(
    'forbidden',
    path === '/usage'
      ? `a team admin token reads the usage of its team: add team=${actor.team} or app=<an app of team '${actor.team}'>`
      : "a team admin token reads its team's usage and audit only",
  );
}

/**
 * GET /admin/api/usage, /latency, /refusals, /failures, /apps, /budgets and /guardrails: JSON for every app, read from
 * the ledger (see AdminReports). Anything else, or a caller without the token or a session, gets
 * the gateway's error envelope.
 */
export function registerAdminApi(
  app: FastifyInstance,
  options: { access: AdminAccess; reports: AdminReports; now: () => number; governance: AdminGovernance },
): void {
  const { access, reports, now, governance } = options;
  void app.register(
    async (api) => {
      api.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        // Answers about every app: never kept by a shared cache.
        reply.header('cache-control', 'no-store');
        const actor = await actorOf(request, access, governance, now());
        if (actor === undefined)
          throw new ApiError(
            'unauthorized',
            'the admin token or a team admin token (Authorization: Bearer), or a dashboard session, is required',
          );
        actors.set(request, actor);
      });
      const actor = (request: FastifyRequest): AdminActor =>
        actors.get(request) ?? { kind: 'team', team: '', tokenId: '' };
      const querystring = { type: 'object', additionalProperties: { type: 'string', maxLength: 200 } };
      const route = (
        path: string,
        handler: (query: Record<string, string | undefined>) => Promise<unknown>,
      ) =>
        api.get<QueryOf>(path, { schema: { querystring, hide: true } }, (request) => {
          scopeReport(actor(request), path, request.query, governance.snapshot);
          return handler(request.query);
        });
      route('/usage', (query) => reports.usage(query));
      route('/latency', (query) => reports.latency(query));
      route('/refusals', (query) => reports.refusals(query));
      route('/failures', (query) => reports.failures(query));
      route('/apps', () => reports.apps());
      route('/budgets', () => reports.budgets());
      route('/guardrails', (query) => reports.guardrails(query));
      registerGovernanceRoutes(api, actor, governance.admin, governance.keys);
    },
    { prefix: '/admin/api' },
  );
}
