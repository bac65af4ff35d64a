import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config-types.ts';
import { BUNDLED_CONTENT_DIR, loadSiteContent } from './content/load-site-content.ts';
import { registerPageRoutes } from './content/register-page-routes.ts';
import { MCP_PATH, registerMcpRoutes } from './mcp/register-mcp-routes.ts';
import type { SiteToolsContext } from './mcp/site-tool-handlers.ts';
import { buildApiCatalog } from './openapi/api-catalog.ts';
import { registerSiteOpenApi } from './openapi/site-openapi.ts';
import { registerWellKnownRoutes } from './well-known/register-well-known-routes.ts';

export interface SiteDiscoveryOptions {
  /** Browser origins allowed on /mcp beyond the public URLs and localhost (MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins?: readonly string[];
  /** Told of every MCP tool call (the metrics). */
  onToolCall?: SiteToolsContext['onToolCall'];
}

/**
 * Site content, the OpenAPI document, the MCP server and the discovery documents of surface B.
 * Call it first, right after the Fastify instance is created: @fastify/swagger only records the
 * routes added after it. Content and identity files are read and checked here, once; a bad file
 * stops start-up with a ConfigError naming the setting and the file.
 */
export async function registerSiteDiscovery(
  app: FastifyInstance,
  config: Config,
  options: SiteDiscoveryOptions = {},
): Promise<void> {
  const urls = { siteUrl: config.publicSiteUrl, gatewayUrl: config.publicGatewayUrl };
  const content = loadSiteContent(config.site.contentDir ?? BUNDLED_CONTENT_DIR, urls);
  const catalog = buildApiCatalog(config, content.overview);
  const toolsContext: SiteToolsContext = {
    content,
    catalog,
    siteUrl: config.publicSiteUrl,
    ...(options.onToolCall === undefined ? {} : { onToolCall: options.onToolCall }),
  };

  await registerSiteOpenApi(app, config.publicSiteUrl);
  registerPageRoutes(app, content);
  await registerMcpRoutes(app, {
    context: toolsContext,
    publicSiteUrl: config.publicSiteUrl,
    publicGatewayUrl: config.publicGatewayUrl,
    allowedOrigins: options.mcpAllowedOrigins ?? [],
  });
  await registerWellKnownRoutes(app, {
    publicSiteUrl: config.publicSiteUrl,
    mcpUrl: `${config.publicSiteUrl}${MCP_PATH}`,
    identityDiscoveryFile: config.site.identityDiscoveryFile,
    content,
    catalog,
    toolsContext,
  });
}
