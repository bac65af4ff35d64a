import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config-types.ts';

/** GET /health: liveness only, no credentials, no dependency checks (those are in the site's /api/health). */
export function registerHealthRoute(app: FastifyInstance, config: Config): void {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness probe',
        operationId: 'health',
        security: [],
        response: { 200: { $ref: 'GatewayHealth#' } },
      },
    },
    (request) => ({
      ok: true,
      service: 'inference-gateway',
      environment: config.environment,
      requestId: request.id,
    }),
  );
}
