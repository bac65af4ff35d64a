import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { fromPackageRoot } from '../../platform/package-root.ts';
import { buildHealthReport, type HealthSources } from './health-report.ts';
import { HEALTH_MEDIA_TYPE, healthResponse } from './health-schemas.ts';

export type HealthRouteDeps = Omit<HealthSources, 'version'>;

/**
 * GET /up: liveness, 200 text/plain while the process serves, no dependency checked (HEAD too),
 * for load balancers that must not take an instance out because the database blinked.
 * GET /api/health: the dependencies, as application/health+json; 503 when a check fails.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthRouteDeps): void {
  const version = readPackageVersion();
  app.get(
    '/up',
    {
      schema: {
        summary: 'Liveness: 200 while the process serves',
        operationId: 'up',
        tags: ['site'],
        response: {
          200: { description: 'Serving', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    (_request, reply) =>
      reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('ok\n'),
  );

  app.get(
    '/api/health',
    {
      schema: {
        summary: 'Health of the site API and its dependencies',
        operationId: 'health',
        tags: ['site'],
        response: {
          200: healthResponse('pass or warn'),
          503: healthResponse('fail: a dependency is down'),
        },
      },
    },
    async (_request, reply) => {
      const report = await buildHealthReport({ ...deps, version });
      return reply
        .code(report.status === 'fail' ? 503 : 200)
        .type(HEALTH_MEDIA_TYPE)
        .header('cache-control', 'no-store')
        .send(report);
    },
  );
}

/** The package version, read once; health reports must not fail over a missing file. */
function readPackageVersion(): string {
  try {
    const text = readFileSync(fromPackageRoot('package.json'), 'utf8');
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
