import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toFetchApiRequest } from '../../platform/fetch-api-request.ts';
import { createSiteMcpServer } from './create-site-mcp-server.ts';
import type { McpRouteDeps } from './register-mcp-routes.ts';

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
    const response = await transport.handleRequest(toFetchApiRequest(request, deps.publicSiteUrl));
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
