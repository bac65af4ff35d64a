import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { startRequestRun } from '../../http/start-request-run.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import { resolveModelField } from '../../services/address-model.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { runChat } from '../../services/run-chat.ts';
import { openChatStream } from '../../services/run-chat-stream.ts';
import { validateToolRequest } from '../../services/validate-tool-request.ts';
import { COST_HEADER, formatCost } from '../cost-header.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { toAnthropicErrorBody } from './anthropic-error-body.ts';
import { countInputTokens } from './count-input-tokens.ts';
import { nameToolFault } from './name-tool-fault.ts';
import { readCountTokensRequest, readMessagesRequest } from './read-messages-request.ts';
import { toAnthropicEvents } from './to-anthropic-events.ts';
import { toAnthropicMessage } from './to-anthropic-message.ts';
import { writeAnthropicStream } from './write-anthropic-stream.ts';

/** Where the door's routes live; the SDKs add it to the base URL themselves. */
export const ANTHROPIC_DOOR_PREFIX = '/v1/messages';

const DOOR_PATHS = new Set([ANTHROPIC_DOOR_PREFIX, `${ANTHROPIC_DOOR_PREFIX}/count_tokens`]);

/**
 * The Anthropic-compatible door (CONTRACT 4.2), base URL `http://host:8787`: `POST /v1/messages`
 * and `POST /v1/messages/count_tokens`. Registered inside the authenticated /v1 scope, under
 * ANTHROPIC_DOOR_PREFIX in a context of its own whose every answer but success is Anthropic's
 * error body with the native route's status: the credential check's 401, Fastify's own
 * 400/413/415, and a 404 or 405 under the prefix (`/v1/messages/batches`) included. The
 * `anthropic-version` and `anthropic-beta` headers are accepted and ignored.
 */
export async function registerAnthropicDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  await v1.register(
    async (door: TypedInstance) => {
      door.setErrorHandler(
        doorErrorHandler((error, request) =>
          toAnthropicErrorBody(error.toEnvelope(), error.statusCode, String(request.id)),
        ),
      );
      door.setNotFoundHandler(refuseOtherRoutes);
      registerMessages(door, deps);
      registerCountTokens(door, deps);
    },
    { prefix: ANTHROPIC_DOOR_PREFIX },
  );
}

/** A path under the prefix that is not one of the door's: 405 on its own paths, else 404. */
function refuseOtherRoutes(request: FastifyRequest): never {
  const path = request.url.split('?')[0] ?? '';
  if (DOOR_PATHS.has(path.endsWith('/') ? path.slice(0, -1) : path)) {
    throw new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}`, {
      headers: { allow: 'POST' },
    });
  }
  throw new ApiError('not_found', `no route for ${request.method} ${path.slice(0, 200)}`);
}

function registerMessages(door: TypedInstance, deps: GatewayDeps): void {
  // Not in the gateway's OpenAPI document, which describes its own API: Anthropic's reference
  // describes these, and docs/anthropic-door.md what differs.
  door.post('', { schema: { hide: true } }, async (request, reply) => {
    const parsed = readMessagesRequest(request.body);
    const input: ChatInput = { ...parsed.input, ...resolveModelField(deps, parsed.model) };
    // Before the run starts: a request refused here never ran and leaves no record.
    try {
      validateToolRequest(input, deps.schemas);
    } catch (error) {
      throw nameToolFault(error);
    }
    const operation = parsed.stream ? 'chat_stream' : 'chat';
    const session = { userId: parsed.metadata?.['user_id'] };
    const run = startRequestRun(
      request,
      reply,
      deps,
      operation,
      { metadata: parsed.metadata, session },
      'anthropic',
    );
    if (!parsed.stream) {
      const answer = await runChat(input, run);
      return reply
        .headers(run.responseHeaders)
        .header(COST_HEADER, formatCost(answer.usage))
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
}

function registerCountTokens(door: TypedInstance, deps: GatewayDeps): void {
  door.post('/count_tokens', { schema: { hide: true } }, async (request, reply) => {
    const parsed = readCountTokensRequest(request.body);
    // A name that addresses nothing is refused here as it would be by /v1/messages.
    resolveModelField(deps, parsed.model);
    const inputTokens = await countInputTokens(deps.tokenizer, parsed.messages, parsed.tools);
    return reply.header('request-id', String(request.id)).send({ input_tokens: inputTokens });
  });
}
