/**
 * The MCP gateway's names and allow lists (CONTRACT 5.7), pure: a tool of an upstream server is
 * offered as `server__tool`; an app's allow list holds `server/*` and `server/tool` entries, and
 * what it does not name is denied.
 */

/** A server past this many tools is listed up to it: its list is held in memory and offered whole. */
export const MAX_TOOLS_PER_SERVER = 500;

/** Between a server's name and its tool's: server names hold no '_', so the first `__` splits. */
export const TOOL_NAME_SEPARATOR = '__';

/** The name a client sees for `tool` of `server`. */
export function gatewayToolName(server: string, tool: string): string {
  return `${server}${TOOL_NAME_SEPARATOR}${tool}`;
}

/** The server and tool a client's name stands for; undefined when it has no server part. */
export function splitToolName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(TOOL_NAME_SEPARATOR);
  if (at <= 0 || at + TOOL_NAME_SEPARATOR.length === name.length) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + TOOL_NAME_SEPARATOR.length) };
}

/** What an app may list and call. */
export interface ToolAllowance {
  /** The servers it may use a tool of: the only ones its listing asks. */
  readonly servers: ReadonlySet<string>;
  allows(server: string, tool: string): boolean;
}

/** Denies everything: the allowance of an app without an allow list. */
export const DENY_ALL: ToolAllowance = { servers: new Set(), allows: () => false };

/** The allowance of an allow list's entries (`server/*`, `server/tool`; checked at start-up). */
export function compileAllowList(entries: readonly string[]): ToolAllowance {
  if (entries.length === 0) return DENY_ALL;
  const wholeServers = new Set<string>();
  const tools = new Set<string>();
  const servers = new Set<string>();
  for (const entry of entries) {
    const slash = entry.indexOf('/');
    const server = entry.slice(0, slash);
    const tool = entry.slice(slash + 1);
    servers.add(server);
    if (tool === '*') wholeServers.add(server);
    else tools.add(`${server}/${tool}`);
  }
  return {
    servers,
    allows: (server, tool) => wholeServers.has(server) || tools.has(`${server}/${tool}`),
  };
}

/** One upstream's tools, as it listed them. */
export interface ServerTools<T extends { name: string }> {
  server: string;
  tools: readonly T[];
}

/**
 * The tools an app is offered: those of every listed server its allowance admits, renamed
 * `server__tool`, in order of name (code unit order, the same on every instance), so that an
 * upstream's own order changes nothing.
 */
export function offeredTools<T extends { name: string }>(
  lists: readonly ServerTools<T>[],
  allowance: ToolAllowance,
): T[] {
  const offered: T[] = [];
  for (const { server, tools } of lists) {
    for (const tool of tools) {
      if (allowance.allows(server, tool.name))
        offered.push({ ...tool, name: gatewayToolName(server, tool.name) });
    }
  }
  return offered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Allows what both allowances allow: an app's list bounded by its team's. */
export function intersectAllowances(a: ToolAllowance, b: ToolAllowance): ToolAllowance {
  if (a === DENY_ALL || b === DENY_ALL) return DENY_ALL;
  return {
    servers: new Set([...a.servers].filter((server) => b.servers.has(server))),
    allows: (server, tool) => a.allows(server, tool) && b.allows(server, tool),
  };
}

/**
 * Why an allow list sent through the admin API cannot be used, or undefined: each entry is
 * `server/*` or `server/tool`. An entry naming a server that is not configured is kept (a server
 * may be added later) and simply allows nothing until then.
 */
export function checkToolAllowList(entries: readonly string[]): string | undefined {
  for (const [index, entry] of entries.entries()) {
    // The file's shape (config/read-mcp-settings.ts): a server's name, '/', then a tool or '*'.
    const slash = entry.indexOf('/');
    if (slash <= 0 || slash === entry.length - 1)
      return `item ${index}: '${entry.slice(0, 200)}' is not server/* or server/tool`;
  }
  return undefined;
}
