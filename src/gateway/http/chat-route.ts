import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runChat } from '../services/run-chat.ts';
import { openChatStream } from '../services/run-chat-stream.ts';
import { errorResponses } from './openapi-responses.ts';
import { scopeFor } from './request-scope-factory.ts';
import { type ChatBody, ChatRequest, ChatResponse } from './schemas.ts';
import { writeChatStream } from './write-chat-stream.ts';

export function registerChatRoute(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/chat',
    {
      schema: {
        summary: 'Chat completion (JSON, or server-sent events when stream is true)',
        operationId: 'chat',
        body: ChatRequest,
        response: {
          200: {
            description:
              'A ChatResponse, or with stream true an SSE stream: start, delta…, then done or error',
            content: {
              'application/json': { schema: ChatResponse },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as ChatBody;
      const scope = scopeFor(request, reply, deps.clock, body.stream === true ? 'chat_stream' : 'chat', body);
      if (body.stream !== true) {
        const answer = await runChat(deps, body, scope);
        return reply.headers(scope.responseHeaders).send(answer);
      }
      const stream = await openChatStream(deps, body, scope);
      await writeChatStream(reply, stream, deps.config.streamKeepAliveMs, scope.responseHeaders);
      return reply;
    },
  );
}
