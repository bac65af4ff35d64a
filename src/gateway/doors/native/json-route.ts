import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { runJson } from '../../services/run-json.ts';
import { serveRun } from '../serve-run.ts';
import { JsonRequest, JsonResponse } from './native-schemas.ts';
import { errorResponses } from './openapi-responses.ts';

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
    (request, reply) => {
      const body = request.body;
      const start = {
        operation: 'json',
        frontDoor: 'native',
        task: body.task,
        metadata: body.metadata,
      } as const;
      return serveRun(request, reply, deps, start, async (run) => {
        reply.headers(run.responseHeaders).send(await runJson(deps, body, run));
      });
    },
  );
}
