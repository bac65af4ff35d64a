import type { ApiError } from '../../../platform/errors.ts';

/** JSON-RPC 2.0 error codes the gateway's /mcp answers with at the HTTP layer. */
export const JSON_RPC_CODES = {
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error, as the MCP SDK's transport uses for its HTTP refusals. */
  serverError: -32000,
} as const;

/**
 * /mcp speaks JSON-RPC, so its HTTP-level refusals (401, 405, 413, 429, 503…) carry a JSON-RPC
 * error with a null id, as the SDK's own transport answers, with the status and headers (a
 * Retry-After) the gateway's catalogue gives the error.
 */
export function mcpErrorBody(error: ApiError): unknown {
  const code = error.statusCode >= 500 ? JSON_RPC_CODES.internalError : JSON_RPC_CODES.serverError;
  const message = error.statusCode === 500 ? 'Internal error' : error.message;
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
