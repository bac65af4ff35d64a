import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runJson } from '../services/run-json.ts';
import { errorResponses } from './openapi-responses.ts';
import { scopeFor } from './request-scope-factory.ts';
import { type JsonBody, JsonRequest, JsonResponse } from './schemas.ts';

export function registerJsonRoute(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/json',
    {
      schema: {
        summary: 'Structured output validated against a caller-supplied JSON Schema',
        operationId: 'json',
        body: JsonRequest,
        response: { 200: JsonResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body as JsonBody;
      const scope = scopeFor(request, reply, deps.clock, 'json', body);
      const answer = await runJson(deps, body, scope);
      return reply.headers(scope.responseHeaders).send(answer);
    },
  );
}
