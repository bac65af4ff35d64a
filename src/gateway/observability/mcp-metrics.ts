import type { McpSettings } from '../../config/config-types.ts';
import { CounterFamily } from '../../platform/metrics/metric-families.ts';
import type { MetricsRegistry } from '../../platform/metrics/metrics-registry.ts';
import { MAX_TOOLS_PER_SERVER } from '../domain/mcp-tools.ts';
import type { McpToolCounter } from '../mcp/mcp-gateway.ts';

/**
 * How a tools/call through the MCP gateway ended: `ok`; `tool_error` (the server answered a result
 * with isError); `timeout`, `unreachable`, `upstream_error` (no result from the server); `denied`
 * (not in the app's allow list), `unknown_tool` (no such server), `invalid` (arguments too large),
 * `rate_limited` (an app limit, or its calls in progress), `client_closed`.
 */
export type McpCallOutcome =
  | 'ok'
  | 'tool_error'
  | 'timeout'
  | 'unreachable'
  | 'upstream_error'
  | 'denied'
  | 'unknown_tool'
  | 'invalid'
  | 'rate_limited'
  | 'client_closed';

const OTHER = 'other';

/**
 * `gateway_mcp_tool_calls_total{server, tool, outcome}`. Label values are bounded: a server is a
 * configured one, a tool one its server listed (at most MAX_TOOLS_PER_SERVER each), anything else
 * a client names is `other`.
 */
export class McpToolMetrics implements McpToolCounter {
  readonly #calls = new CounterFamily(
    'gateway_mcp_tool_calls_total',
    'MCP tools/call requests through the gateway, by upstream server, tool (as the server lists it; other for names it never listed) and outcome (ok, tool_error, timeout, unreachable, upstream_error, denied, unknown_tool, invalid, rate_limited, client_closed).',
    ['server', 'tool', 'outcome'],
  );
  readonly #known = new Map<string, Set<string>>();

  constructor(registry: MetricsRegistry, settings: McpSettings) {
    registry.add(this.#calls);
    for (const server of settings.servers) this.#known.set(server.name, new Set());
  }

  listed(server: string, tools: readonly string[]): void {
    const known = this.#known.get(server);
    if (known === undefined) return;
    for (const tool of tools) {
      if (known.size >= MAX_TOOLS_PER_SERVER) break;
      known.add(tool);
    }
  }

  called(server: string, tool: string, outcome: McpCallOutcome): void {
    const known = this.#known.get(server);
    const serverLabel = known === undefined ? OTHER : server;
    const toolLabel = known?.has(tool) === true ? tool : OTHER;
    this.#calls.series([serverLabel, toolLabel, outcome]).inc();
  }
}
