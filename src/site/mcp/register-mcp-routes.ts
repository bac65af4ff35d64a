import type { FastifyInstance } from 'fastify';
import { toApiError } from '../../platform/error-handler.ts';
import { JSON_RPC, sendJsonRpcError } from './json-rpc-error.ts';
import { mcpRouteSchemas } from './mcp-route-schemas.ts';
import { createOriginPolicy } from './origin-policy.ts';
import type { SiteToolsContext } from './site-tool-handlers.ts';

export interface McpRouteDeps {
  context: SiteToolsContext;
  publicSiteUrl: string;
  publicGatewayUrl: string;
  /** Browser origins trusted beyond the public URLs and localhost (MCP_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
}

export const MCP_PATH = '/mcp';
/**
 * The MCP SDK and zod (about 40 MB of RSS together) are loaded by the first POST /mcp, not at
 * start-up: a site that is never asked over MCP never pays for them.
 */
let serving: Promise<typeof import('./serve-mcp-post.ts')> | undefined;
function loadMcpServing(): Promise<typeof import('./serve-mcp-post.ts')> {
  serving ??= import('./serve-mcp-post.ts').catch((error: unknown) => {
    serving = undefined;
    throw error;
  });
  return serving;
}
const PREFLIGHT_HEADERS =
  'Content-Type, Accept, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';

/**
 * POST /mcp: the MCP server over streamable HTTP, stateless and public, answering JSON. The
 * routes live in their own encapsulated plugin so that only /mcp takes raw bodies (the SDK parses
 * them and answers -32700 itself) and answers errors as JSON-RPC instead of the REST envelope.
 */
export async function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): Promise<void> {
  const isAllowedOrigin = createOriginPolicy(deps);
  await app.register(async (mcp) => {
    mcp.removeAllContentTypeParsers();
    mcp.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // The body schema is documentation for the OpenAPI document; the SDK validates JSON-RPC itself.
    mcp.setValidatorCompiler(() => () => true);
    mcp.setErrorHandler((error, request, reply) => {
      const apiError = toApiError(error);
      if (apiError.statusCode >= 500) request.log.error({ err: error }, 'MCP request failed');
      const code = apiError.statusCode >= 500 ? JSON_RPC.internalError : JSON_RPC.invalidRequest;
      return sendJsonRpcError(
        reply,
        apiError.statusCode,
        code,
        apiError.statusCode >= 500 ? 'Internal error' : apiError.message,
      );
    });

    mcp.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (!isAllowedOrigin(origin)) {
        request.log.warn({ origin }, 'MCP request from a foreign origin refused');
        return sendJsonRpcError(
          reply,
          403,
          JSON_RPC.serverError,
          `Forbidden: origin ${origin} is not allowed`,
        );
      }
      // A trusted browser origin may read the answers (CORS); everyone else needs no CORS headers.
      if (origin !== undefined) {
        reply
          .header('access-control-allow-origin', origin)
          .header('vary', 'Origin')
          .header('access-control-expose-headers', 'Mcp-Session-Id, X-Request-Id');
      }
    });

    mcp.post(MCP_PATH, { schema: mcpRouteSchemas.post }, async (request, reply) => {
      const { serveMcpPost } = await loadMcpServing();
      return serveMcpPost(request, reply, deps);
    });

    // Stateless: no server-to-client SSE stream to GET, no session to DELETE (MCP transports §2.2, §2.5).
    for (const method of ['GET', 'DELETE'] as const) {
      mcp.route({
        method,
        url: MCP_PATH,
        schema: mcpRouteSchemas.notAllowed(method),
        handler: (_request, reply) => {
          reply.header('allow', 'POST');
          const message = `Method not allowed: ${method} ${MCP_PATH}; this stateless server takes POST only`;
          return sendJsonRpcError(reply, 405, JSON_RPC.serverError, message);
        },
      });
    }

    mcp.options(MCP_PATH, { schema: mcpRouteSchemas.preflight }, (_request, reply) =>
      reply
        .code(204)
        .header('allow', 'POST, OPTIONS')
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', PREFLIGHT_HEADERS)
        .header('access-control-max-age', '600')
        .send(),
    );
  });
}
