import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { AdminCredentials } from './admin-credentials.ts';
import type { AdminReports } from './admin-reports.ts';
import type { AdminSessions } from './admin-sessions.ts';
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

/**
 * GET /admin/api/usage, /latency, /refusals, /failures and /apps: JSON for every app, read from
 * the ledger (see AdminReports). Anything else, or a caller without the token or a session, gets
 * the gateway's error envelope.
 */
export function registerAdminApi(
  app: FastifyInstance,
  options: { access: AdminAccess; reports: AdminReports; now: () => number },
): void {
  const { access, reports, now } = options;
  void app.register(
    async (api) => {
      api.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        // Answers about every app: never kept by a shared cache.
        reply.header('cache-control', 'no-store');
        if (!(await isAdmin(request, access, now())))
          throw new ApiError(
            'unauthorized',
            'the admin token (Authorization: Bearer) or a dashboard session is required',
          );
      });
      const querystring = { type: 'object', additionalProperties: { type: 'string', maxLength: 200 } };
      const route = (
        path: string,
        handler: (query: Record<string, string | undefined>) => Promise<unknown>,
      ) =>
        api.get<QueryOf>(path, { schema: { querystring, hide: true } }, (request) => handler(request.query));
      route('/usage', (query) => reports.usage(query));
      route('/latency', (query) => reports.latency(query));
      route('/refusals', (query) => reports.refusals(query));
      route('/failures', (query) => reports.failures(query));
      route('/apps', () => reports.apps());
    },
    { prefix: '/admin/api' },
  );
}
