import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SITE_API_VERSION } from '../openapi/site-openapi.ts';
import {
  listPages,
  lookupApiCatalog,
  lookupPolicy,
  type SiteToolsContext,
  siteOverview,
  type ToolFailure,
} from './site-tool-handlers.ts';
import {
  ListPagesInput,
  ListPagesOutput,
  LookupApiCatalogInput,
  LookupApiCatalogOutput,
  LookupPolicyInput,
  LookupPolicyOutput,
  SiteOverviewInput,
  SiteOverviewOutput,
} from './site-tool-schemas.ts';

/** Every tool only reads content loaded at start-up: no side effects, same answer every time. */
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
/** Bounds the work a single tools/call can ask of the argument validator. */
const MAX_TOOL_INPUT_ELEMENTS = 100;

const INSTRUCTIONS =
  'Read-only access to this website: use site_overview first, list_pages to browse pages and policies (paged with nextCursor), lookup_policy for the full text of a policy, and lookup_api_catalog for the APIs this site publishes with their OpenAPI, documentation and status links.';

/** A tool answer: the data as structuredContent and, for clients that only read text, as JSON text. */
function toResult(context: SiteToolsContext, tool: string, data: object | ToolFailure): CallToolResult {
  context.onToolCall?.(tool, 'error' in data ? 'error' : 'ok');
  if ('error' in data) return { content: [{ type: 'text', text: data.error }], isError: true };
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: { ...data } };
}

/**
 * A new MCP server for one HTTP request. The server is stateless (no sessions), so each request
 * gets a fresh server and transport, as the SDK requires; the content they read is shared.
 */
export function createSiteMcpServer(context: SiteToolsContext): McpServer {
  const { overview } = context.content;
  const server = new McpServer(
    {
      name: 'site',
      title: overview.name,
      version: SITE_API_VERSION,
      // The short text: the server card, built from this answer, allows 1-100 characters.
      description: overview.summary,
      websiteUrl: context.siteUrl,
    },
    { instructions: INSTRUCTIONS, maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS },
  );

  server.registerTool(
    'site_overview',
    {
      title: 'Site overview',
      description: "The site's name, description, base URL, sections with their pages, and page counts.",
      inputSchema: SiteOverviewInput,
      outputSchema: SiteOverviewOutput,
      annotations: READ_ONLY,
    },
    () => toResult(context, 'site_overview', siteOverview(context)),
  );
  server.registerTool(
    'list_pages',
    {
      title: 'List pages',
      description:
        'Pages and policies of the site with their summaries and last-updated dates, pages first, then policies, each by slug. Filter with kind; when nextCursor is present, call again with it as cursor for the rest.',
      inputSchema: ListPagesInput,
      outputSchema: ListPagesOutput,
      annotations: READ_ONLY,
    },
    (args) => toResult(context, 'list_pages', listPages(context, args)),
  );
  server.registerTool(
    'lookup_policy',
    {
      title: 'Look up a policy',
      description:
        'Full text (Markdown) of one policy, such as the privacy policy or the terms of service, found by slug or title, ignoring case. An unknown policy is an error that lists the known slugs.',
      inputSchema: LookupPolicyInput,
      outputSchema: LookupPolicyOutput,
      annotations: READ_ONLY,
    },
    (args) => toResult(context, 'lookup_policy', lookupPolicy(context, args)),
  );
  server.registerTool(
    'lookup_api_catalog',
    {
      title: 'Look up the API catalog',
      description:
        'The APIs this site publishes (the same catalog as /.well-known/api-catalog), each with its base URL and its OpenAPI, documentation and status links. Narrow with a case-insensitive query.',
      inputSchema: LookupApiCatalogInput,
      outputSchema: LookupApiCatalogOutput,
      annotations: READ_ONLY,
    },
    (args) => toResult(context, 'lookup_api_catalog', lookupApiCatalog(context, args)),
  );
  // The tool list never changes while the process runs, so no list_changed notification will
  // ever come; the SDK announces `listChanged: true` by default, which would promise one.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
