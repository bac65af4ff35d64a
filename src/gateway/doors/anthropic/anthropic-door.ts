import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { faultOf } from '../../services/upstream/agent-fault-error.ts';
import { resolveModelField } from '../../services/use-cases/address-model.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { serveChat } from '../serve-chat.ts';
import { ANTHROPIC_CHAT } from './anthropic-chat.ts';
import { toAnthropicErrorBody } from './anthropic-error-body.ts';
import { withAnthropicFault } from './anthropic-fault-body.ts';
import { countInputTokens } from './count-input-tokens.ts';
import { keepRawJsonBodies } from './raw-messages-body.ts';
import { readCountTokensRequest } from './read-messages-request.ts';

/** Where the door's routes live; the SDKs add it to the base URL themselves. */
export const ANTHROPIC_DOOR_PREFIX = '/v1/messages';

const DOOR_PATHS = new Set([ANTHROPIC_DOOR_PREFIX, `${ANTHROPIC_DOOR_PREFIX}/count_tokens`]);

/**
 * The Anthropic-compatible door (CONTRACT 4.2), base URL `http://host:8787`: `POST /v1/messages`
 * and `POST /v1/messages/count_tokens`. Registered inside the authenticated /v1 scope, under
 * ANTHROPIC_DOOR_PREFIX in a context of its own whose every answer but success is Anthropic's
 * error body with the native route's status: the credential check's 401, Fastify's own
 * 400/413/415, and a 404 or 405 under the prefix (`/v1/messages/batches`) included. Messages
 * go in two lanes (ANTHROPIC_CHAT's `passThrough`, served by serve-chat.ts): as the client wrote them to an `anthropic` slot, with
 * `anthropic-version` and `anthropic-beta` forwarded; translated to any other.
 */
export async function registerAnthropicDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  await v1.register(
    async (door: TypedInstance) => {
      door.setErrorHandler(
        doorErrorHandler((error, request) =>
          withAnthropicFault(
            toAnthropicErrorBody(error.toEnvelope(), error.statusCode, String(request.id)),
            faultOf(error),
          ),
        ),
      );
      door.setNotFoundHandler(refuseOtherRoutes);
      keepRawJsonBodies(door, ANTHROPIC_DOOR_PREFIX);
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
  door.post('', { schema: { hide: true } }, (request, reply) =>
    serveChat(request, reply, deps, ANTHROPIC_CHAT),
  );
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
