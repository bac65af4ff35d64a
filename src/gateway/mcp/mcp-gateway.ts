import type { Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpSettings } from '../../config/config-types.ts';
import {
  compileAllowList,
  intersectAllowances,
  offeredTools,
  type ToolAllowance,
} from '../domain/mcp-tools.ts';
import type { GovernanceSnapshot } from '../governance/governance-snapshot.ts';
import { McpUpstream } from './mcp-upstream.ts';

interface CompiledAllowance {
  own: readonly string[] | undefined;
  team: readonly string[] | undefined;
  allowance: ToolAllowance;
}

/** What the MCP gateway tells the metrics (observability/mcp-metrics.ts). */
export interface McpToolCounter {
  listed(server: string, tools: readonly string[]): void;
}

/**
 * The MCP gateway's state for one process: an McpUpstream per configured server, each app's
 * allowance (compiled once), and each app's tool calls in progress (maxConcurrentCallsPerApp).
 */
export class McpGateway {
  readonly settings: McpSettings;
  readonly #upstreams: Map<string, McpUpstream>;
  /** Each app's allowance, with the lists it was compiled from (recompiled when either changes). */
  readonly #allowances = new Map<string, CompiledAllowance>();
  readonly #inProgress = new Map<string, number>();

  constructor(
    settings: McpSettings,
    clientInfo: Implementation,
    counter: McpToolCounter | undefined,
    now: () => number,
  ) {
    this.settings = settings;
    this.#upstreams = new Map(
      settings.servers.map((server) => [
        server.name,
        new McpUpstream(server, {
          callTimeoutMs: settings.callTimeoutMs,
          listTimeoutMs: settings.listTimeoutMs,
          listCacheMs: settings.listCacheMs,
          clientInfo,
          now,
          ...(counter === undefined ? {} : { onListed: (name, tools) => counter.listed(name, tools) }),
        }),
      ]),
    );
  }

  /**
   * What `app` may list and call (CONTRACT 5.7, 6.5): its `mcp.allow` list as the governance
   * store holds it (set in the file, or through the admin API), bounded by its team's; an app
   * without a list of its own gets its team's; with neither, nothing. Read from the snapshot on
   * every call, so a change through the API holds within the snapshot's refresh. An app the
   * snapshot does not hold (no governance store) keeps the file's list.
   */
  allowanceOf(app: string, governance?: GovernanceSnapshot): ToolAllowance {
    const policy = governance?.app(app);
    const own = policy === undefined ? this.#fileList(app) : policy.mcpAllow;
    const team = policy === undefined ? undefined : governance?.teamOf(app)?.mcpAllow;
    const cached = this.#allowances.get(app);
    if (cached !== undefined && cached.own === own && cached.team === team) return cached.allowance;
    const allowance =
      own === undefined
        ? compileAllowList(team ?? [])
        : team === undefined
          ? compileAllowList(own)
          : intersectAllowances(compileAllowList(own), compileAllowList(team));
    this.#allowances.set(app, { own, team, allowance });
    return allowance;
  }

  #fileList(app: string): readonly string[] | undefined {
    return Object.hasOwn(this.settings.allow, app) ? this.settings.allow[app] : undefined;
  }

  upstream(server: string): McpUpstream | undefined {
    return this.#upstreams.get(server);
  }

  /**
   * The tools `app` is offered: the allowed ones of every server it may use that answered within
   * the listing bound, named `server__tool`, in name order. Servers the app may not use are not asked.
   */
  async toolsFor(allowance: ToolAllowance): Promise<Tool[]> {
    const servers = [...this.#upstreams.values()].filter((upstream) => allowance.servers.has(upstream.name));
    const lists = await Promise.all(
      servers.map(async (upstream) => ({ server: upstream.name, tools: (await upstream.tools()) ?? [] })),
    );
    return offeredTools(lists, allowance);
  }

  /** Takes one of the app's call places; false when all are taken. `leave` gives it back. */
  enter(app: string): boolean {
    const current = this.#inProgress.get(app) ?? 0;
    if (current >= this.settings.maxConcurrentCallsPerApp) return false;
    this.#inProgress.set(app, current + 1);
    return true;
  }

  leave(app: string): void {
    const current = this.#inProgress.get(app) ?? 0;
    if (current <= 1) this.#inProgress.delete(app);
    else this.#inProgress.set(app, current - 1);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.close()));
  }
}
