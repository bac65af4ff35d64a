import type { FastifyInstance } from 'fastify';
import type { Operation } from '../../storage/ports.ts';
import type { RunMetrics } from '../services/run/request-run-metrics.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request's run starts: from then on the run counts it. */
    runStarted?: boolean;
  }
}

type RouteRow = readonly [frontDoor: string, operation: Operation];

/**
 * The inference routes, by route pattern: which door and operation a request was for. A door's
 * new POST route needs a row here or in ROUTES_WITHOUT_ROW; test/architecture/route-rows.test.ts
 * fails on a route of the built gateway that has neither.
 */
export const INFERENCE_ROUTES: Readonly<Record<string, RouteRow>> = {
  '/v1/chat': ['native', 'chat'],
  '/v1/embed': ['native', 'embed'],
  '/v1/json': ['native', 'json'],
  '/v1/chat/completions': ['openai', 'chat'],
  '/v1/embeddings': ['openai', 'embed'],
  '/v1/responses': ['responses', 'chat'],
  '/v1/messages': ['anthropic', 'chat'],
  // The Gemini door's methods (`:generateContent`, `:embedContent`, …) share a route: counted as chat.
  '/v1beta/models/:head': ['gemini', 'chat'],
  '/v1beta/models/:head/:tail': ['gemini', 'chat'],
  '/v1/models/:head': ['gemini', 'chat'],
  '/v1/models/:head/:tail': ['gemini', 'chat'],
};

/**
 * The POST routes that are not counted here: counting tokens runs no model, `/compact` is refused
 * whole, and the MCP door's tool calls are runs of their own (operation `mcp_tool`).
 */
export const ROUTES_WITHOUT_ROW: readonly string[] = [
  '/v1/messages/count_tokens',
  '/v1/responses/compact',
  '/mcp',
  // Files and batches (CONTRACT 6.7) store and schedule work: each request a batch runs is a run of
  // its own, counted under its endpoint's row when the runner sends it through the door.
  '/v1/files',
  '/v1/batches',
  '/v1/batches/:id/cancel',
  '/v1/messages/batches',
  '/v1/messages/batches/:id/cancel',
];

/**
 * Counts, under its app, an inference request that passed authentication and was answered before
 * a run started (a body that is not JSON, too large, or fails the schema: a 400, 413 or 415), so
 * that the request counter has every authenticated request, not only those that ran. The label
 * values come from the route pattern, never from the URL a client wrote.
 */
export function countRequestsWithoutRun(scope: FastifyInstance, metrics: RunMetrics | undefined): void {
  if (metrics === undefined) return;
  scope.addHook('onResponse', (request, reply, done) => {
    // Every inference route is a POST (a GET of /v1/responses is a refused WebSocket handshake).
    if (request.runStarted !== true && request.method === 'POST' && typeof request.appName === 'string') {
      const route = INFERENCE_ROUTES[request.routeOptions.url ?? ''];
      if (route !== undefined)
        metrics.refusedBeforeRun(request.appName, route[1], route[0], reply.statusCode);
    }
    done();
  });
}
