import type { EmbedInput } from '../../domain/use-case-inputs.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import type { UsageReadingDeps } from '../../services/ledger/read-usage.ts';
import { NO_HEADERS } from '../chat-door.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT } from '../serve-run.ts';
import { type EmbedDoor, type EmbedReading, serveEmbed, serveJson } from '../serve-use-case.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { NATIVE_CHAT } from './native-chat.ts';
import {
  ChatRequest,
  ChatResponse,
  EmbedRequest,
  EmbedResponse,
  JsonRequest,
  JsonResponse,
} from './native-schemas.ts';
import { errorResponses } from './openapi-responses.ts';
import { registerUsageRoute } from './usage-route.ts';

/**
 * The native API (the seed's routes) as a door like the others, inside the authenticated /v1
 * scope, with the surface's own error envelope: POST /v1/chat (through the one chat handler),
 * /v1/embed and /v1/json (one use case's JSON answer each), and GET /v1/usage. These are the
 * routes the gateway's OpenAPI document describes.
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
  v1.post(
    '/v1/embed',
    {
      schema: {
        summary: 'Embeddings: one vector per input string',
        operationId: 'embed',
        body: EmbedRequest,
        response: { 200: EmbedResponse, ...errorResponses },
      },
    },
    (request, reply) => serveEmbed(request, reply, deps, NATIVE_EMBED),
  );
  v1.post(
    '/v1/json',
    {
      schema: {
        summary: 'Structured output validated against a caller-supplied JSON Schema',
        operationId: 'json',
        body: JsonRequest,
        response: { 200: JsonResponse, ...errorResponses },
      },
    },
    (request, reply) => serveJson(request, reply, deps, 'native', request.body),
  );
  registerUsageRoute(v1, deps);
}

/** `/v1/embed`: the body is the use case's input; the answer its JSON, written by embedAnswerJson. */
const NATIVE_EMBED: EmbedDoor<EmbedReading> = {
  frontDoor: 'native',
  read: (body) => {
    const request = body as EmbedInput & { task?: string; metadata?: Record<string, unknown> };
    return { input: request, task: request.task, metadata: request.metadata };
  },
  // JSON already written (see embedAnswerJson), for which Fastify would name no JSON content type.
  answer: (answer) => ({ headers: NO_HEADERS, body: embedAnswerJson(answer), contentType: JSON_TEXT }),
};
