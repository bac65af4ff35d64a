import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { runEmbed } from '../../services/run-embed.ts';
import { serveRun } from '../serve-run.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { EmbedRequest, EmbedResponse } from './native-schemas.ts';
import { errorResponses } from './openapi-responses.ts';

export function registerEmbedRoute(app: TypedInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/embed',
    {
      schema: {
        summary: 'Embeddings: one vector per input string',
        operationId: 'embed',
        body: EmbedRequest,
        response: { 200: EmbedResponse, ...errorResponses },
      },
    },
    (request, reply) => {
      const body = request.body;
      const start = {
        operation: 'embed',
        frontDoor: 'native',
        task: undefined,
        metadata: body.metadata,
      } as const;
      return serveRun(request, reply, deps, start, async (run) => {
        const answer = await runEmbed(deps, body, run);
        // Sent as JSON already written (see embedAnswerJson), for which Fastify would name no JSON
        // content type: it is set here.
        reply
          .headers(run.responseHeaders)
          .type('application/json; charset=utf-8')
          .send(embedAnswerJson(answer));
      });
    },
  );
}
