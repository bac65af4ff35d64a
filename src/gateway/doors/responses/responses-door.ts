import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { openAIErrorBody } from '../openai/openai-error-body.ts';
import { serveChat } from '../serve-chat.ts';
import { responsesChat } from './responses-chat.ts';

/** Where the door's routes live; OpenAI's SDKs and Codex add `/responses` to a base URL ending in /v1. */
export const RESPONSES_PREFIX = '/v1/responses';

/**
 * The Responses API door (CONTRACT 5.4), base URL `http://host:8787/v1`: `POST /v1/responses`,
 * JSON or SSE, on every slot kind. Registered inside the authenticated /v1 scope, in a context of
 * its own whose every failure is OpenAI's error body with the native route's status. A WebSocket
 * upgrade (Codex's WebSocket mode, the specification's `response.create` over a socket) is
 * refused at once with 426, and `POST /v1/responses/compact` (OpenAI's server-side compaction)
 * is a 404, so a client falls back to what the gateway serves without waiting.
 */
export async function registerResponsesDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  const door = responsesChat(() => {});
  await v1.register(
    async (scope: TypedInstance) => {
      scope.setErrorHandler(
        doorErrorHandler((error) => openAIErrorBody(error.statusCode, error.toEnvelope())),
      );
      scope.post('', { schema: { hide: true } }, (request, reply) => serveChat(request, reply, deps, door));
      scope.get('', { schema: { hide: true } }, refuseWebSocket);
      scope.post('/compact', { schema: { hide: true } }, async () => {
        throw new ApiError('not_found', 'POST /v1/responses/compact is not supported by this gateway');
      });
    },
    { prefix: RESPONSES_PREFIX },
  );
}

/**
 * `GET /v1/responses` is only ever a WebSocket handshake: refused with 426 (HTTP, not a socket),
 * in OpenAI's error shape, so the client sends its request by HTTP POST instead.
 */
async function refuseWebSocket(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const upgrade = String(request.headers.upgrade ?? '').toLowerCase();
  if (upgrade !== 'websocket') {
    throw new ApiError('method_not_allowed', 'GET is not allowed on /v1/responses: POST a request', {
      headers: { allow: 'POST' },
    });
  }
  const body = openAIErrorBody(426, {
    error: {
      code: 'invalid_request',
      message: 'WebSocket mode is not supported by this gateway: POST /v1/responses over HTTP',
    },
  });
  return reply.code(426).header('connection', 'close').send(body);
}
