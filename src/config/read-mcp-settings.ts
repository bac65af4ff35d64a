import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import type { AppSeed, ConfigFile } from './config-file-schema.ts';
import { McpLimitsSchema, type McpServerSettings, type McpSettings } from './mcp-settings.ts';
import { withDefaults } from './read-defaults.ts';

/** `server/*` or `server/tool`: a server's name, then one tool or every tool. */
const ALLOW_ENTRY = /^([^/]+)\/(.+)$/;

/**
 * The MCP gateway's settings from the file's `mcp` block (MCP_SERVERS laid over its servers) and
 * the apps' `mcp.allow` lists. An allow entry must name a configured server, so that a typo
 * surfaces at start-up rather than as a tool that never appears. Errors name the server or the
 * app, never a header's value.
 */
export function readMcpSettings(settings: ConfigFile, serversSetting: string): McpSettings {
  const block = settings.mcp ?? {};
  const servers: McpServerSettings[] = Object.entries(block.servers ?? {})
    .map(([name, server]) => ({
      name,
      url: checkUrl(`${serversSetting}: server '${name}' url`, server.url, ['http:', 'https:'], {
        requireHost: true,
      }) as string,
      headers: { ...server.headers },
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const known = new Set(servers.map((server) => server.name));
  for (const team of settings.teams ?? [])
    checkAllowEntries(team.mcp?.allow ?? [], `teams '${team.name}' mcp.allow`, known);
  return {
    ...withDefaults(McpLimitsSchema, block),
    servers,
    allow: readAllowLists(settings.apps ?? [], known),
  };
}

function readAllowLists(apps: readonly AppSeed[], servers: ReadonlySet<string>): Record<string, string[]> {
  const allow: Record<string, string[]> = {};
  for (const app of apps) {
    const entries = app.mcp?.allow;
    if (entries === undefined) continue;
    checkAllowEntries(entries, `apps '${app.name}' mcp.allow`, servers);
    // An app may be listed twice (the file and GATEWAY_APPS): its entries add up.
    allow[app.name] = [
      ...new Set([...(Object.hasOwn(allow, app.name) ? (allow[app.name] ?? []) : []), ...entries]),
    ];
  }
  return allow;
}

/** Stops start-up on an entry that is not `server/*` or `server/tool`, or names no configured server. */
function checkAllowEntries(entries: readonly string[], setting: string, servers: ReadonlySet<string>): void {
  for (const entry of entries) {
    const match = ALLOW_ENTRY.exec(entry);
    if (match === null)
      throw new ConfigError(setting, `has '${entry}': expected 'server/*' or 'server/tool'`);
    if (!servers.has(match[1] as string))
      throw new ConfigError(
        setting,
        `has '${entry}': no MCP server '${match[1]}' is configured (mcp.servers)`,
      );
  }
}
