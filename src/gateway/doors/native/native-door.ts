import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RunStart } from '../../http/start-request-run.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import type { UsageReadingDeps } from '../../services/ledger/read-usage.ts';
import { CACHE_HEADER } from '../../services/response-cache/response-cache.ts';
import type { RequestRun } from '../../services/run/request-run.ts';
import { runEmbed } from '../../services/use-cases/run-embed.ts';
import { answerJson } from '../cache-outcome.ts';
import { type DoorAnswer, NO_HEADERS } from '../chat-door.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT, sendAnswer, serveRun } from '../serve-run.ts';
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
    (request, reply) =>
      // JSON already written (see embedAnswerJson), for which Fastify would name no JSON content
      // type: it is given here.
      serveNative(request, reply, deps, 'embed', request.body, async (run) => ({
        headers: NO_HEADERS,
        body: embedAnswerJson(await runEmbed(deps, request.body, run)),
        contentType: JSON_TEXT,
      })),
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
    (request, reply) => {
      // A value of x-gateway-cache the gateway does not know is a 400 before the run starts.
      const cache = deps.responseCache.policyFor(
        request.appName,
        request.body.task,
        request.headers[CACHE_HEADER],
      );
      return serveNative(request, reply, deps, 'json', request.body, async (run) => ({
        headers: NO_HEADERS,
        body: await answerJson(reply, deps, request.body, run, cache),
      }));
    },
  );
  registerUsageRoute(v1, deps);
}

/** A native route's run: the body's task and metadata recorded, `answer`'s answer sent. */
function serveNative(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  operation: RunStart['operation'],
  body: { task?: string | undefined; metadata?: Record<string, unknown> | undefined },
  answer: (run: RequestRun) => Promise<DoorAnswer>,
): Promise<FastifyReply> {
  const start = { operation, frontDoor: 'native' as const, task: body.task, metadata: body.metadata };
  return serveRun(request, reply, deps, start, async (run) => sendAnswer(reply, run, await answer(run)));
}
