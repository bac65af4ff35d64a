import type { FastifyRequest } from 'fastify';

/** Hop-by-hop and framing headers describe Fastify's connection, not the request handed on. */
const SKIPPED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);

/**
 * A Fastify request as a Fetch API Request (the MCP SDK's web-standard transport takes one, for
 * the site's MCP server and the gateway's MCP door): the URL against `baseUrl`, the headers but the
 * connection's own, and the raw body text, unparsed (a body that is not text goes as empty).
 */
export function toFetchApiRequest(request: FastifyRequest, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = typeof request.body === 'string' ? request.body : '';
  return new Request(new URL(request.url, baseUrl), { method: request.method, headers, body });
}
