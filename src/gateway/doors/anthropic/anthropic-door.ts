import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import { toApiError } from '../../../platform/error-handler.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { CLIENT_CLOSED_STATUS, ClientClosedError } from '../../services/client-closed-error.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import type { RequestRun } from '../../services/request-run.ts';
import { runChat } from '../../services/run-chat.ts';
import { openChatStream } from '../../services/run-chat-stream.ts';
import { toAnthropicErrorBody } from './anthropic-error-body.ts';
import { countInputTokens } from './count-input-tokens.ts';
import { readCountTokensRequest, readMessagesRequest } from './read-messages-request.ts';
import { toAnthropicEvents } from './to-anthropic-events.ts';
import { costHeader, toAnthropicMessage } from './to-anthropic-message.ts';
import { writeAnthropicStream } from './write-anthropic-stream.ts';

/** What the door takes from the gateway's edge (http/), handed in so that the door never imports it. */
export interface DoorEdge {
  /** The /v1 credential check (`x-api-key` or `Authorization: Bearer` with `<app>:<secret>`). */
  authenticate: onRequestHookHandler;
  /** Holds new work back while the usage ledger catches up. */
  waitForLedger: preHandlerHookHandler;
  /** The run of one request through this door. */
  startRun(
    request: FastifyRequest,
    reply: FastifyReply,
    operation: 'chat' | 'chat_stream',
    metadata: Record<string, unknown> | undefined,
  ): RequestRun;
  /** A `model` field as the gateway addresses it: a slot and model, a route or task, or a model name. */
  addressModel(model: string): Pick<ChatInput, 'provider' | 'model' | 'task'>;
}

/** Where the door's routes live; the SDKs add it to the base URL themselves. */
export const ANTHROPIC_DOOR_PREFIX = '/v1/messages';

const DOOR_PATHS = new Set([ANTHROPIC_DOOR_PREFIX, `${ANTHROPIC_DOOR_PREFIX}/count_tokens`]);

/** The cost of a non-streamed answer, in US dollars (CONTRACT 4.2; a stream has `usage.cost_usd`). */
export const COST_HEADER = 'x-gateway-cost-usd';

/**
 * The Anthropic-compatible door (base URL `http://host:8787`): `POST /v1/messages` and
 * `POST /v1/messages/count_tokens`, registered under ANTHROPIC_DOOR_PREFIX in an encapsulated
 * scope whose every answer but success, the 401 of the credential check, Fastify's own
 * 400/413/415 and a 404 or 405 under the prefix (`/v1/messages/batches`) included, is
 * Anthropic's error body. The `anthropic-version` and `anthropic-beta` headers are accepted and
 * ignored.
 */
export async function registerAnthropicDoor(
  app: FastifyInstance,
  deps: GatewayDeps,
  edge: DoorEdge,
): Promise<void> {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ClientClosedError) return reply.code(CLIENT_CLOSED_STATUS).send();
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (apiError.headers !== undefined) reply.headers(apiError.headers);
    return reply
      .code(apiError.statusCode)
      .type('application/json; charset=utf-8')
      .send(toAnthropicErrorBody(apiError.toEnvelope(), apiError.statusCode, String(request.id)));
  });
  app.addHook('onRequest', edge.authenticate);
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0] ?? '';
    if (DOOR_PATHS.has(path.endsWith('/') ? path.slice(0, -1) : path)) {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}`, {
        headers: { allow: 'POST' },
      });
    }
    throw new ApiError('not_found', `no route for ${request.method} ${path.slice(0, 200)}`);
  });

  // Not in the gateway's OpenAPI document, which describes its own API: Anthropic's reference
  // describes these, and docs/anthropic-door.md what differs.
  app.post('', { schema: { hide: true }, preHandler: edge.waitForLedger }, async (request, reply) => {
    const parsed = readMessagesRequest(request.body);
    const input: ChatInput = { ...parsed.input, ...edge.addressModel(parsed.model) };
    const run = edge.startRun(request, reply, parsed.stream ? 'chat_stream' : 'chat', parsed.metadata);
    if (!parsed.stream) {
      const answer = await runChat(input, run);
      return reply
        .headers(run.responseHeaders)
        .header(COST_HEADER, costHeader(answer.usage))
        .header('request-id', String(request.id))
        .send(toAnthropicMessage(answer, parsed.singleToolCall));
    }
    const stream = await openChatStream(input, run);
    const events = toAnthropicEvents(stream.start, stream.events, parsed.singleToolCall);
    await writeAnthropicStream(
      reply,
      events,
      stream.events,
      deps.config.streamKeepAliveMs,
      run.responseHeaders,
    );
    return reply;
  });

  app.post('/count_tokens', { schema: { hide: true } }, async (request, reply) => {
    const parsed = readCountTokensRequest(request.body);
    const inputTokens = await countInputTokens(parsed.messages, parsed.tools);
    return reply.header('request-id', String(request.id)).send({ input_tokens: inputTokens });
  });
}
