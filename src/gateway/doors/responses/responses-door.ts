import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import type { ResponseMemory } from '../../services/use-cases/response-memory.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { openAIDoorErrorBody, openAIErrorBody } from '../openai-error-body.ts';
import { serveChat } from '../serve-chat.ts';
import { checkStorable, continueResponse, inputItemsOf } from './continue-response.ts';
import { type InputItemsQuery, listInputItems } from './list-input-items.ts';
import { responsesChat } from './responses-chat.ts';

/** Where the door's routes live; OpenAI's SDKs and Codex add `/responses` to a base URL ending in /v1. */
export const RESPONSES_PREFIX = '/v1/responses';

/**
 * The Responses API door (CONTRACT 5.4), base URL `http://host:8787/v1`: `POST /v1/responses`,
 * JSON or SSE, on every slot kind; with `store: true` the answer is kept for the app (`memory`),
 * and `previous_response_id`, `GET /v1/responses/{id}`, `GET /v1/responses/{id}/input_items`
 * and `DELETE /v1/responses/{id}` read it, for that app only. Registered inside the
 * authenticated /v1 scope, in a context of its own whose every failure is OpenAI's error body
 * with the native route's status. A WebSocket upgrade (Codex's WebSocket mode) is refused at once
 * with 426, and `POST /v1/responses/compact` (OpenAI's server-side compaction) is a 404, so a
 * client falls back to what the gateway serves without waiting.
 */
export async function registerResponsesDoor(
  v1: TypedInstance,
  deps: GatewayDeps,
  memory: ResponseMemory,
): Promise<void> {
  await v1.register(
    async (scope: TypedInstance) => {
      scope.setErrorHandler(doorErrorHandler(openAIDoorErrorBody));
      registerCreate(scope, deps, memory);
      registerStored(scope, memory);
      scope.get('', { schema: { hide: true } }, refuseWebSocket);
      scope.post('/compact', { schema: { hide: true } }, async () => {
        throw new ApiError('not_found', 'POST /v1/responses/compact is not supported by this gateway');
      });
    },
    { prefix: RESPONSES_PREFIX },
  );
}

function registerCreate(scope: TypedInstance, deps: GatewayDeps, memory: ResponseMemory): void {
  // A stored whole answer is written before its bytes go out, so that a client continuing from
  // it at once finds it.
  const storing = new WeakMap<FastifyRequest, Promise<void>>();
  scope.addHook('onSend', async (request) => {
    await storing.get(request);
  });
  scope.post('', { schema: { hide: true } }, async (request, reply) => {
    const app = request.appName;
    request.body = await continueResponse(request.body, (id) => memory.recall(app, id));
    checkStorable(request.body, memory.maxBytes);
    const door = responsesChat((read, response) => {
      if (!read.store) return undefined;
      const kept = memory.keep(app, response, inputItemsOf(read.body['input'])).catch((error: unknown) => {
        // The answer was given and paid for: it goes out; only a later continuation will miss it.
        request.log.warn({ err: error, responseId: response['id'] }, 'stored response not kept');
      });
      storing.set(request, kept);
      return kept;
    });
    return serveChat(request, reply, deps, door);
  });
}

interface StoredParams {
  id: string;
}

function registerStored(scope: TypedInstance, memory: ResponseMemory): void {
  const notFound = (id: string) =>
    new ApiError('not_found', `no stored response '${id.slice(0, 128)}' for this app`);
  scope.get<{ Params: StoredParams }>('/:id', { schema: { hide: true } }, async (request) => {
    const stored = await memory.recall(request.appName, request.params.id);
    if (stored === undefined) throw notFound(request.params.id);
    return stored.response;
  });
  scope.get<{ Params: StoredParams; Querystring: InputItemsQuery }>(
    '/:id/input_items',
    { schema: { hide: true } },
    async (request) => {
      const stored = await memory.recall(request.appName, request.params.id);
      if (stored === undefined) throw notFound(request.params.id);
      return listInputItems(request.params.id, stored.inputItems, request.query);
    },
  );
  scope.delete<{ Params: StoredParams }>('/:id', { schema: { hide: true } }, async (request) => {
    if (!(await memory.forget(request.appName, request.params.id))) throw notFound(request.params.id);
    return { id: request.params.id, object: 'response', deleted: true };
  });
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
