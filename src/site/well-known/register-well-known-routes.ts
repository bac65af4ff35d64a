import type { FastifyInstance } from 'fastify';
import type { SiteContent } from '../content/site-content.ts';
import type { SiteToolsContext } from '../mcp/site-tool-handlers.ts';
import type { CatalogApi } from '../openapi/api-catalog.ts';
import { registerAgentSkillsRoutes } from './register-agent-skills-routes.ts';
import { registerApiCatalogRoute } from './register-api-catalog-route.ts';
import { registerIdentityRoutes } from './register-identity-routes.ts';
import { registerServerCardRoutes } from './register-server-card-routes.ts';

export interface WellKnownDeps {
  publicSiteUrl: string;
  mcpUrl: string;
  identityDiscoveryFile: string | undefined;
  content: SiteContent;
  catalog: readonly CatalogApi[];
  toolsContext: SiteToolsContext;
}

/** Every /.well-known document of surface B (the OpenAPI copy is registered with the OpenAPI document). */
export async function registerWellKnownRoutes(app: FastifyInstance, deps: WellKnownDeps): Promise<void> {
  registerApiCatalogRoute(app, deps);
  registerAgentSkillsRoutes(app, deps.content.skills);
  await registerServerCardRoutes(app, {
    publicSiteUrl: deps.publicSiteUrl,
    mcpUrl: deps.mcpUrl,
    context: deps.toolsContext,
  });
  registerIdentityRoutes(app, deps);
}
