import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { constantTimeEqual } from '../constant-time.ts';
import { ApiError } from '../errors.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

/**
 * GET /metrics: the Prometheus text format. Open when `token` is undefined; otherwise the request
 * must carry `Authorization: Bearer <token>`, compared in constant time (as digests, so the
 * comparison's length says nothing of the token's).
 */
function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function registerMetricsRoute(
  app: FastifyInstance,
  registry: MetricsRegistry,
  token: string | undefined,
): void {
  const expected = token === undefined ? undefined : sha256Hex(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== undefined) {
      const header = request.headers.authorization;
      const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
      if (given === undefined || !constantTimeEqual(sha256Hex(given), expected)) {
        throw new ApiError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {
          headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    const text = await registry.text();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
