import type { FastifyInstance } from 'fastify';
import { type CachedDocument, prepareJsonDocument } from '../documents/cached-document.ts';
import { registerDocumentRoute } from '../documents/register-document-route.ts';
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
 * /.well-known/mcp/server-card (the path SEP-2127 now proposes), built from what the server itself
 * answers to initialize and tools/list. It is built when first asked for, not at start-up: asking
 * the server loads the MCP SDK and zod (about 40 MB of RSS), which a site nobody asks over MCP
 * never needs.
 */
export async function registerServerCardRoutes(app: FastifyInstance, deps: ServerCardDeps): Promise<void> {
  let card: Promise<CachedDocument> | undefined;
  const load = (): Promise<CachedDocument> => {
    card ??= buildCard(deps).catch((error: unknown) => {
      card = undefined;
      throw error;
    });
    return card;
  };
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
      load,
    );
  }
}

async function buildCard(deps: ServerCardDeps): Promise<CachedDocument> {
  const { describeSiteMcpServer } = await import('../mcp/describe-site-mcp-server.ts');
  const server = await describeSiteMcpServer(deps.context);
  return prepareJsonDocument(
    buildServerCard({ publicSiteUrl: deps.publicSiteUrl, mcpUrl: deps.mcpUrl, server }),
  );
}
