import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** What a streamable HTTP client sends with every POST (MCP transports: Accept must list both). */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

let nextId = 1;

/** POSTs one JSON-RPC message (or raw text) to /mcp through inject(). */
export function postMcp(
  site: FastifyInstance,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return site.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...MCP_HEADERS, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A JSON-RPC request with a fresh id. */
export function rpc(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) };
}

export function initializeParams(protocolVersion: string): Record<string, unknown> {
  return { protocolVersion, capabilities: {}, clientInfo: { name: 'site-tests', version: '1.0.0' } };
}
