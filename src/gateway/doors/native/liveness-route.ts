import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config/config-types.ts';

/**
 * GET /health, the seed's liveness probe: the process answers, nothing more. No credentials and no
 * dependency checks (the site's /api/health checks those); not the providers' health, which is
 * the circuit breaker's (gateway/health/).
 */
export function registerLivenessRoute(app: FastifyInstance, config: Config): void {
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
