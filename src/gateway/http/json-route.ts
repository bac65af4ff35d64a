import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runJson } from '../services/run-json.ts';
import { errorResponses } from './openapi-responses.ts';
import { JsonRequest, JsonResponse } from './schemas.ts';
import { startRequestRun } from './start-request-run.ts';
import type { TypedInstance } from './typed-instance.ts';

export function registerJsonRoute(app: TypedInstance, deps: GatewayDeps): void {
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
      const body = request.body;
      const run = startRequestRun(request, reply, deps, 'json', body);
      const answer = await runJson(deps, body, run);
      return reply.headers(run.responseHeaders).send(answer);
    },
  );
}
