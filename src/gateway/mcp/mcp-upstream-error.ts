import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** How a call to an upstream MCP server failed: its outcome in metrics, and the ledger's error. */
export type McpUpstreamFailure = 'timeout' | 'unreachable' | 'upstream_error';

/** Upstream text kept in a tool result: enough to understand, never a whole body. */
const MAX_DETAIL_LENGTH = 300;

/**
 * A call to an upstream MCP server that gave no result: the text is what the client reads in
 * its tool result (`isError`), naming the server and never its URL or headers.
 */
export class McpUpstreamError extends Error {
  readonly failure: McpUpstreamFailure;

  constructor(failure: McpUpstreamFailure, message: string) {
    super(message);
    this.name = 'McpUpstreamError';
    this.failure = failure;
  }

  static timeout(server: string, ms: number): McpUpstreamError {
    return new McpUpstreamError(
      'timeout',
      `MCP server '${server}' did not answer within ${formatSeconds(ms)}; the call was cut. It may have run anyway.`,
    );
  }
}

/** Any failure of the SDK's client, as the gateway reports it. */
export function toUpstreamError(server: string, error: unknown): McpUpstreamError {
  if (error instanceof McpUpstreamError) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return new McpUpstreamError(
        'timeout',
        `MCP server '${server}' did not answer in time; the call was cut.`,
      );
    if (error.code === ErrorCode.ConnectionClosed)
      return new McpUpstreamError('unreachable', `MCP server '${server}' closed the connection.`);
    return new McpUpstreamError(
      'upstream_error',
      `MCP server '${server}' answered an error: ${detail(error)}`,
    );
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    const why = typeof code === 'string' ? ` (${code})` : '';
    return new McpUpstreamError('unreachable', `MCP server '${server}' could not be reached${why}.`);
  }
  return new McpUpstreamError('upstream_error', `MCP server '${server}' failed: ${detail(error)}`);
}

function detail(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length <= MAX_DETAIL_LENGTH ? text : `${text.slice(0, MAX_DETAIL_LENGTH)}…`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
