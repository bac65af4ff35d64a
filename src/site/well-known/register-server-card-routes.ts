import type { FastifyInstance } from 'fastify';
import { prepareJsonDocument } from '../documents/cached-document.ts';
import { registerDocumentRoute } from '../documents/register-document-route.ts';
import { describeSiteMcpServer } from '../mcp/describe-site-mcp-server.ts';
import type { SiteToolsContext } from '../mcp/site-tool-handlers.ts';
import { ServerCardSchema } from './discovery-schemas.ts';
import { buildServerCard } from './server-card.ts';

export interface ServerCardDeps {
  publicSiteUrl: string;
  mcpUrl: string;
  context: SiteToolsContext;
}

/**
 * The MCP server card at /.well-known/mcp/server-card.json (the path this API publishes) and at
 * /.well-known/mcp/server-card (the path SEP-2127 now proposes), built at start-up from what
 * the server itself answers to initialize and tools/list.
 */
export async function registerServerCardRoutes(app: FastifyInstance, deps: ServerCardDeps): Promise<void> {
  const server = await describeSiteMcpServer(deps.context);
  const document = prepareJsonDocument(
    buildServerCard({ publicSiteUrl: deps.publicSiteUrl, mcpUrl: deps.mcpUrl, server }),
  );
  for (const [path, operationId, hide] of [
    ['/.well-known/mcp/server-card.json', 'mcpServerCard', false],
    ['/.well-known/mcp/server-card', 'mcpServerCardDraftPath', true],
  ] as const) {
    registerDocumentRoute(
      app,
      {
        path,
        operationId,
        summary: 'MCP server card: where and how to connect, capabilities and tools',
        mediaType: 'application/json',
        bodySchema: ServerCardSchema,
        hide,
      },
      () => document,
    );
  }
}
