import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSiteMcpServer } from './create-site-mcp-server.ts';
import type { McpRouteDeps } from './register-mcp-routes.ts';

/** Hop-by-hop and framing headers describe Fastify's connection, not the request handed to the SDK. */
const SKIPPED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);

/** One request, one server and transport (the SDK's stateless pattern), both closed afterwards. */
export async function serveMcpPost(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: McpRouteDeps,
): Promise<FastifyReply> {
  const server = createSiteMcpServer(deps.context);
  // No sessionIdGenerator: stateless mode, no Mcp-Session-Id issued or checked.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(toWebRequest(request, deps.publicSiteUrl));
    // JSON mode: the answer is complete once handleRequest resolves; send it with a length.
    const body = await response.text();
    reply.code(response.status);
    for (const [name, value] of response.headers) reply.header(name, value);
    return reply.send(body === '' ? undefined : body);
  } finally {
    await transport.close();
    await server.close();
  }
}

/** The SDK's transport takes a Fetch API Request; the raw body text is handed over unparsed. */
function toWebRequest(request: FastifyRequest, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = typeof request.body === 'string' ? request.body : '';
  return new Request(new URL(request.url, baseUrl), { method: request.method, headers, body });
}
