import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { AdminCredentials } from './admin-credentials.ts';
import type { AdminReports } from './admin-reports.ts';
import type { SessionCookie } from './session-cookie.ts';

const MAX_AUTHORIZATION = 1024;

/** Who may read the admin API: the admin token as a Bearer credential, or a dashboard session. */
export function isAdmin(
  request: FastifyRequest,
  credentials: AdminCredentials,
  cookie: SessionCookie,
  now: number,
): boolean {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length <= MAX_AUTHORIZATION) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match !== null) return credentials.matchesToken(match[1] as string);
  }
  const session = cookie.read(request.headers.cookie);
  return session !== undefined && credentials.isValidSession(session, now);
}

type QueryOf = { Querystring: Record<string, string | undefined> };

/**
 * GET /admin/api/usage, /latency, /refusals, /failures and /apps: JSON for every app, read from
 * the ledger (see AdminReports). Anything else, or a caller without the token or a session, gets
 * the gateway's error envelope.
 */
export function registerAdminApi(
  app: FastifyInstance,
  options: { credentials: AdminCredentials; cookie: SessionCookie; reports: AdminReports; now: () => number },
): void {
  const { credentials, cookie, reports, now } = options;
  void app.register(
    async (api) => {
      api.addHook(
        'onRequest',
        (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
          // Answers about every app: never kept by a shared cache.
          reply.header('cache-control', 'no-store');
          if (isAdmin(request, credentials, cookie, now())) done();
          else
            done(
              new ApiError(
                'unauthorized',
                'the admin token (Authorization: Bearer) or a dashboard session is required',
              ),
            );
        },
      );
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
