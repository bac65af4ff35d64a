import type { GatewayDeps } from '../services/gateway-deps.ts';
import { runChat } from '../services/run-chat.ts';
import { openChatStream } from '../services/run-chat-stream.ts';
import { validateToolRequest } from '../services/validate-tool-request.ts';
import { errorResponses } from './openapi-responses.ts';
import { ChatRequest, ChatResponse } from './schemas.ts';
import { startRequestRun } from './start-request-run.ts';
import type { TypedInstance } from './typed-instance.ts';
import { writeChatStream } from './write-chat-stream.ts';

export function registerChatRoute(app: TypedInstance, deps: GatewayDeps): void {
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
              'A ChatResponse, or with stream true an SSE stream: start, then delta and tool_call events, then done (a ChatResponse) or error',
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
      const body = request.body;
      // Before the run starts: a request refused here never ran and leaves no record.
      validateToolRequest(body, deps.schemas);
      const run = startRequestRun(request, reply, deps, body.stream === true ? 'chat_stream' : 'chat', body);
      if (body.stream !== true) {
        const answer = await runChat(body, run);
        // The ChatResponse serializer writes only the contract's fields (not the Anthropic door's stopSequence).
        return reply.headers(run.responseHeaders).send(answer);
      }
      const stream = await openChatStream(body, run);
      await writeChatStream(reply, stream, deps.config.streamKeepAliveMs, run.responseHeaders);
      return reply;
    },
  );
}
