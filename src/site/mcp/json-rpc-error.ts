import type { FastifyReply } from 'fastify';

/** JSON-RPC 2.0 error codes used at the HTTP layer of the MCP endpoint. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /** Implementation-defined server error, as the MCP SDK uses for transport-level refusals. */
  serverError: -32000,
} as const;

/**
 * The MCP endpoint speaks JSON-RPC, so its HTTP-level refusals (403, 405, 413, ...) carry a
 * JSON-RPC error with a null id, as the MCP SDK's own transport does, rather than the site's
 * REST error envelope.
 */
export function sendJsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
