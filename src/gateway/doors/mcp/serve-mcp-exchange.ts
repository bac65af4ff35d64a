import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toFetchApiRequest } from '../../../platform/fetch-api-request.ts';
import { McpGateway } from '../../mcp/mcp-gateway.ts';
import { serveRuns } from '../serve-run.ts';
import { ToolCalls } from './answer-tool-call.ts';
import type { McpServingDeps } from './mcp-serving-deps.ts';

const SERVER_NAME = 'inference-gateway';
const INSTRUCTIONS =
  'Tools of the MCP servers this gateway fronts, named server__tool; tools/list shows those this app may call. A tool result with isError explains a refusal (a limit) or a server that failed or did not answer in time.';

/** The MCP door's work, loaded with the SDK by the first POST /mcp: the upstreams, and each POST. */
export function createMcpServing(deps: McpServingDeps) {
  const gateway = new McpGateway(
    deps.config.mcp,
    { name: SERVER_NAME, version: deps.version },
    deps.mcpMetrics,
    () => deps.clock.now(),
  );
  return {
    serve: (request: FastifyRequest, reply: FastifyReply) => serveExchange(request, reply, deps, gateway),
    close: () => gateway.close(),
  };
}

/**
 * One POST: a fresh SDK server and transport (the SDK's stateless pattern), answering JSON. The
 * app's tools/list and tools/call go to the gateway; every run a tools/call started is finished
 * once the answer is sent, whatever happened (CONTRACT 5.1).
 */
function serveExchange(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: McpServingDeps,
  gateway: McpGateway,
): Promise<FastifyReply> {
  return serveRuns(request, reply, deps, async (runs) => {
    const app = request.appName;
    const calls = new ToolCalls(request, runs, deps, gateway);
    const server = new Server(
      { name: SERVER_NAME, version: deps.version },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: await gateway.toolsFor(gateway.allowanceOf(app, deps.governance?.snapshot)),
    }));
    server.setRequestHandler(CallToolRequestSchema, (call) => calls.answer(call.params));
    // No sessionIdGenerator: stateless, no Mcp-Session-Id issued or checked.
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(
        toFetchApiRequest(request, deps.config.publicGatewayUrl),
      );
      const body = await response.text();
      reply.code(response.status);
      for (const [name, value] of response.headers) reply.header(name, value);
      reply.headers(await limitState(deps, app, calls));
      reply.send(body === '' ? undefined : body);
    } finally {
      await transport.close();
      await server.close();
    }
  });
}

/**
 * The app's limit state for the answer's headers (contract 5.8): as the POST's tool calls left
 * it, else (initialize, tools/list: they count toward no limit) read without reserving anything.
 * A store that cannot be read costs the headers, never the answer.
 */
async function limitState(
  deps: McpServingDeps,
  app: string,
  calls: ToolCalls,
): Promise<Record<string, string>> {
  if (Object.keys(calls.limitHeaders).length > 0) return calls.limitHeaders;
  return deps.limiter.peek(app).catch(() => ({}));
}
