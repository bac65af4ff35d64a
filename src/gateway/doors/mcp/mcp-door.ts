import type { FastifyInstance } from 'fastify';
import { respondWithError } from '../../../platform/error-handler.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import { mcpErrorBody } from './mcp-error-body.ts';
import type { McpServingDeps } from './mcp-serving-deps.ts';

export const GATEWAY_MCP_PATH = '/mcp';

type Serving = typeof import('./serve-mcp-exchange.ts');

/**
 * The MCP gateway's door (CONTRACT 5.7): `POST /mcp`, Streamable HTTP, stateless (no
 * Mcp-Session-Id: each POST stands alone, so any instance can take any request), inside the
 * authenticated scope, so an app's credentials (`Authorization: Bearer <app>:<secret>`) are checked
 * before the body is read. In a context of its own: only /mcp takes its body as text (the SDK
 * parses it and answers -32700 itself), up to `mcp.maxBodyBytes`, and every refusal is a JSON-RPC
 * error. GET and DELETE answer 405: a stateless server has no stream to open and no session to end.
 * The MCP SDK is loaded by the first POST, not at start-up.
 */
export async function registerMcpDoor(v1: TypedInstance, deps: McpServingDeps): Promise<void> {
  let serving: Promise<Awaited<ReturnType<Serving['createMcpServing']>>> | undefined;
  const load = () => {
    serving ??= import('./serve-mcp-exchange.ts')
      .then((module) => module.createMcpServing(deps))
      .catch((error: unknown) => {
        serving = undefined;
        throw error;
      });
    return serving;
  };
  await v1.register(async (door: FastifyInstance) => {
    door.removeAllContentTypeParsers();
    door.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    door.setErrorHandler((error, request, reply) => respondWithError(error, request, reply, mcpErrorBody));
    door.addHook('onClose', async () => {
      const current = serving;
      serving = undefined;
      await current?.then((s) => s.close()).catch(() => {});
    });
    door.post(
      GATEWAY_MCP_PATH,
      { bodyLimit: deps.config.mcp.maxBodyBytes, schema: { hide: true } },
      async (request, reply) => (await load()).serve(request, reply),
    );
    for (const method of ['GET', 'DELETE'] as const) {
      door.route({
        method,
        url: GATEWAY_MCP_PATH,
        schema: { hide: true },
        handler: () => {
          throw new ApiError(
            'method_not_allowed',
            `${method} ${GATEWAY_MCP_PATH} is not supported: this stateless MCP server takes POST only`,
            { headers: { allow: 'POST' } },
          );
        },
      });
    }
  });
}
