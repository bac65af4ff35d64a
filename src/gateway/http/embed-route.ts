import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runEmbed } from '../services/run-embed.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { errorResponses } from './openapi-responses.ts';
import { scopeFor } from './request-scope-factory.ts';
import { type EmbedBody, EmbedRequest, EmbedResponse } from './schemas.ts';

export function registerEmbedRoute(app: FastifyInstance, deps: GatewayDeps): void {
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
      const body = request.body as EmbedBody;
      const scope = scopeFor(request, reply, deps.clock, 'embed', body);
      const answer = await runEmbed(deps, body, scope);
      // Sent as bytes already written (see embedAnswerJson), for which Fastify would name no
      // JSON content type: it is set here.
      return reply
        .headers(scope.responseHeaders)
        .type('application/json; charset=utf-8')
        .send(embedAnswerJson(answer));
    },
  );
}
