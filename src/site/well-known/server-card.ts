import type { McpServerDescription } from '../mcp/describe-site-mcp-server.ts';

/** MCP Server Cards (SEP-2127, draft): the schema URI the draft names for version 1 cards. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

export interface ServerCardInput {
  publicSiteUrl: string;
  mcpUrl: string;
  server: McpServerDescription;
}

/**
 * The server card: what `initialize` and `tools/list` would tell a client, plus where and how to
 * connect, so a client can decide before connecting. The server is public: no authentication.
 */
export function buildServerCard(input: ServerCardInput): Record<string, unknown> {
  const { serverInfo, capabilities, tools, protocolVersions } = input.server;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${reverseDomainName(input.publicSiteUrl)}/${serverInfo.name}`,
    version: serverInfo.version,
    ...(serverInfo.title === undefined ? {} : { title: serverInfo.title }),
    ...(serverInfo.description === undefined ? {} : { description: serverInfo.description }),
    websiteUrl: input.publicSiteUrl,
    remotes: [
      {
        type: 'streamable-http',
        url: input.mcpUrl,
        supportedProtocolVersions: protocolVersions,
        authentication: { required: false, schemes: [] },
      },
    ],
    capabilities,
    tools,
  };
}

/**
 * The card's `name` is reverse-DNS, `namespace/server`: `www.example.com` gives
 * `com.example.www`. Hosts without a dot (localhost) and IP addresses are kept as they are.
 */
export function reverseDomainName(url: string): string {
  const host = new URL(url).hostname;
  if (!host.includes('.') || /^[\d.]+$/.test(host) || host.startsWith('[')) return host;
  return host.split('.').reverse().join('.');
}
