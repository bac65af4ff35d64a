import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runEmbed } from '../services/run-embed.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { errorResponses } from './openapi-responses.ts';
import { EmbedRequest, EmbedResponse } from './schemas.ts';
import { startRequestRun } from './start-request-run.ts';
import type { TypedInstance } from './typed-instance.ts';

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
    async (request, reply) => {
      const body = request.body;
      const run = startRequestRun(request, reply, deps, 'embed', body);
      const answer = await runEmbed(deps, body, run);
      // Sent as JSON already written (see embedAnswerJson), for which Fastify would name no JSON
      // content type: it is set here.
      return reply
        .headers(run.responseHeaders)
        .type('application/json; charset=utf-8')
        .send(embedAnswerJson(answer));
    },
  );
}
