import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import type { UsageReadingDeps } from '../../services/read-usage.ts';
import { serveChat } from '../serve-chat.ts';
import { registerEmbedRoute } from './embed-route.ts';
import { registerJsonRoute } from './json-route.ts';
import { NATIVE_CHAT } from './native-chat.ts';
import { ChatRequest, ChatResponse } from './native-schemas.ts';
import { errorResponses } from './openapi-responses.ts';
import { registerUsageRoute } from './usage-route.ts';

/**
 * The native API (the seed's routes) as a door like the others, inside the authenticated /v1
 * scope, with the surface's own error envelope: POST /v1/chat, /v1/embed and /v1/json, and GET
 * /v1/usage. These are the routes the gateway's OpenAPI document describes.
 */
export function registerNativeDoor(v1: TypedInstance, deps: GatewayDeps & UsageReadingDeps): void {
  v1.post(
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
    (request, reply) => serveChat(request, reply, deps, NATIVE_CHAT),
  );
  registerEmbedRoute(v1, deps);
  registerJsonRoute(v1, deps);
  registerUsageRoute(v1, deps);
}
