import { SUMMARY_MAX_LENGTH } from '../content/content-schemas.ts';
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
  if (serverInfo.description !== undefined) assertCardDescription(serverInfo.description);
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
 * The content loader already keeps the description within the card schema's 1-100 characters;
 * this guards the card itself, so a change elsewhere stops start-up instead of serving a card
 * that clients reject.
 */
function assertCardDescription(description: string): void {
  const length = [...description].length;
  if (length < 1 || length > SUMMARY_MAX_LENGTH) {
    throw new Error(
      `the MCP server card's description has ${length} characters; the card allows 1-${SUMMARY_MAX_LENGTH}`,
    );
  }
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
