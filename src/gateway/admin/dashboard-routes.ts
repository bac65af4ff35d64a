import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { fromPackageRoot } from '../../platform/package-root.ts';
import { type AdminAccess, isAdmin } from './admin-api-routes.ts';
import { DASHBOARD_CSP, dashboardPage, signInPage } from './dashboard-pages.ts';

const ASSETS: Record<string, string> = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};

/** dist/dashboard, where the build puts the page's bundle; undefined before a build. */
function findAssetDirectory(): URL | undefined {
  const dir = fromPackageRoot('dist/dashboard/');
  return existsSync(new URL('dashboard.js', dir)) ? dir : undefined;
}

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', DASHBOARD_CSP)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY');
}

/**
 * A form post must come from this gateway's own page. SameSite=Strict already keeps the session
 * cookie off other sites' requests; checking Origin also stops another site from signing a
 * browser in or out (login CSRF). Browsers send Origin with every POST.
 */
function checkOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  const own = [new URL(publicUrl).origin, `${request.protocol}://${request.headers.host ?? ''}`];
  if (typeof origin !== 'string' || !own.includes(origin))
    throw new ApiError('forbidden', 'the dashboard only accepts forms from its own page');
}

/** GET /dashboard (the page, or the sign-in form), its sign-in and sign-out, and its bundled assets. */
export function registerDashboard(
  app: FastifyInstance,
  options: { access: AdminAccess; publicUrl: string; now: () => number },
): void {
  const { access, publicUrl, now } = options;
  const { credentials, sessions, cookie } = access;
  const assets = new Map<string, Buffer>();
  const assetDirectory = findAssetDirectory();
  if (assetDirectory !== undefined)
    for (const name of Object.keys(ASSETS)) assets.set(name, readFileSync(new URL(name, assetDirectory)));

  void app.register(async (dashboard) => {
    dashboard.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    dashboard.get('/dashboard', { schema: { hide: true } }, async (request, reply) => {
      if (assets.size === 0)
        throw new ApiError('service_unavailable', 'the dashboard is not built: run npm run build');
      const signedIn = await isAdmin(request, access, now());
      return pageHeaders(reply).send(signedIn ? dashboardPage() : signInPage(false));
    });

    dashboard.post<{ Body: Record<string, string> | undefined }>(
      '/dashboard/sign-in',
      { schema: { hide: true } },
      (request, reply) => {
        checkOrigin(request, publicUrl);
        const token = request.body?.token;
        if (typeof token !== 'string' || !credentials.matchesToken(token))
          return pageHeaders(reply).code(401).send(signInPage(true));
        const session = credentials.openSession(now());
        return reply
          .header('set-cookie', cookie.set(session.value, session.maxAgeSeconds))
          .header('cache-control', 'no-store')
          .redirect('/dashboard', 303);
      },
    );

    // The sign-out is recorded before the cookie is cleared: when the database cannot take it, the
    // answer is a 503 and the browser keeps its session, so that signing out again can end it.
    dashboard.post('/dashboard/sign-out', { schema: { hide: true } }, async (request, reply) => {
      checkOrigin(request, publicUrl);
      const session = cookie.read(request.headers.cookie);
      if (session !== undefined) await sessions.signOut(session, now());
      return reply.header('set-cookie', cookie.clear()).redirect('/dashboard', 303);
    });

    dashboard.get<{ Params: { name: string } }>(
      '/dashboard/assets/:name',
      { schema: { hide: true } },
      (request, reply) => {
        const body = assets.get(request.params.name);
        const type = ASSETS[request.params.name];
        if (body === undefined || type === undefined)
          throw new ApiError('not_found', 'no such dashboard asset');
        return reply
          .header('content-type', type)
          .header('cache-control', 'no-cache')
          .header('x-content-type-options', 'nosniff')
          .send(body);
      },
    );
  });
}
