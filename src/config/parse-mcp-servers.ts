import { ConfigError } from './config-error.ts';
import { MCP_SERVER_NAME_PATTERN, type McpServerFileSettings } from './mcp-settings.ts';

const NAME = new RegExp(MCP_SERVER_NAME_PATTERN);

/**
 * MCP_SERVERS, the environment's short form of `mcp.servers`: comma-separated `name=url` entries.
 * A server that needs headers (a bearer token) is written in the YAML file. Errors name the entry
 * by position, never its URL (which may carry credentials).
 */
export function parseMcpServers(raw: string, setting: string): Record<string, McpServerFileSettings> {
  const servers: Record<string, McpServerFileSettings> = {};
  raw.split(',').forEach((text, index) => {
    if (text.trim() === '') return;
    const equals = text.indexOf('=');
    const name = equals === -1 ? text.trim() : text.slice(0, equals).trim();
    const url = equals === -1 ? '' : text.slice(equals + 1).trim();
    const where = `entry ${index + 1}`;
    if (!NAME.test(name)) {
      throw new ConfigError(
        setting,
        `${where}: the name must be 1-32 letters, digits or '-', starting with a letter or digit`,
      );
    }
    if (url === '') throw new ConfigError(setting, `${where} (${name}): expected name=url`);
    if (Object.hasOwn(servers, name))
      throw new ConfigError(setting, `${where}: server '${name}' is listed twice`);
    servers[name] = { url };
  });
  return servers;
}
