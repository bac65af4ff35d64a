import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

/** Shorter header values (and tokens) are too common to be told apart from other text. */
const MIN_SECRET_LENGTH = 6;
const REDACTED = '[redacted]';

/**
 * What of a server's configured headers must never be repeated: each value, and the credential
 * after an auth scheme (`Bearer <token>`), since a server that refuses a token may echo either.
 */
export function headerSecrets(headers: Readonly<Record<string, string>>): string[] {
  const secrets = new Set<string>();
  for (const value of Object.values(headers)) {
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) secrets.add(trimmed);
    const credential = trimmed.slice(trimmed.indexOf(' ') + 1).trim();
    if (credential.length >= MIN_SECRET_LENGTH) secrets.add(credential);
  }
  // The longest first, so a value is replaced whole before the credential inside it.
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * Any failure of the SDK's client, as the gateway reports it. The SDK puts a refusing server's
 * body in its error (a 401's "invalid token: Bearer …"): the server's own header values
 * (`secrets`, from headerSecrets) are cut from every text that is passed on.
 */
export function toUpstreamError(
  server: string,
  error: unknown,
  secrets: readonly string[] = [],
): McpUpstreamError {
  if (error instanceof McpUpstreamError) return error;
  return describe(server, error, secrets);
}

function redact(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) redacted = redacted.replaceAll(secret, REDACTED);
  return redacted;
}

function describe(server: string, error: unknown, secrets: readonly string[]): McpUpstreamError {
  // The refusal's body is the server's (it may echo the credential): the status says enough.
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403))
    return new McpUpstreamError(
      'upstream_error',
      `MCP server '${server}' refused the gateway's credentials (HTTP ${error.code}): its headers in the configuration may be wrong or expired.`,
    );
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
      `MCP server '${server}' answered an error: ${detail(error, secrets)}`,
    );
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    const why = typeof code === 'string' ? ` (${code})` : '';
    return new McpUpstreamError('unreachable', `MCP server '${server}' could not be reached${why}.`);
  }
  return new McpUpstreamError('upstream_error', `MCP server '${server}' failed: ${detail(error, secrets)}`);
}

/** The failure's own text, its secrets cut before it is shortened (so no part of one is left). */
function detail(error: unknown, secrets: readonly string[]): string {
  const text = redact(error instanceof Error ? error.message : String(error), secrets);
  return text.length <= MAX_DETAIL_LENGTH ? text : `${text.slice(0, MAX_DETAIL_LENGTH)}…`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
