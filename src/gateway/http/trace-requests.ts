import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../platform/logger.ts';
import type { GatewayTracing, RequestSpan } from '../observability/tracing/gateway-tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span, when tracing is on. */
    traceSpan: RequestSpan | undefined;
  }
}

/**
 * One SERVER span per request of the plugin it is registered in, from its arrival (before the
 * credentials are checked, so refusals are traced too) until its response closes, however it
 * ends. The request's log lines carry `trace_id` and `span_id` from then on.
 */
export function traceRequests(app: FastifyInstance, tracing: GatewayTracing): void {
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const span = tracing.startRequest({
      method: request.method,
      route: request.routeOptions.url,
      path: request.url.split('?', 1)[0] as string,
      requestId: request.id,
      headers: request.headers,
    });
    request.traceSpan = span;
    // Added to the request's own logger (pino's setBindings), not a child of it: one object less
    // per request. Fastify's logger type does not declare it; pino, the logger here, has it.
    (request.log as unknown as Logger).setBindings({ trace_id: span.traceId, span_id: span.spanId });
    const response = reply.raw;
    response.on('close', () => span.end(reply.statusCode, !response.writableFinished));
    done();
  });
}
