import type { McpToolMetrics } from '../../observability/mcp-metrics.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';

/** What the MCP door needs: the gateway's services, and the tool-call counter when metrics are on. */
export interface McpServingDeps extends GatewayDeps {
  mcpMetrics?: McpToolMetrics | undefined;
  /** The gateway's version, told to upstream servers and to clients (serverInfo). */
  version: string;
}
