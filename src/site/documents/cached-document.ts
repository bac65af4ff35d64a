import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A document built once (at start-up or on first use) and served as the same bytes every time. */
export interface CachedDocument {
  body: Buffer;
  contentType: string;
  /** Strong entity tag: a hash of exactly these bytes. */
  etag: string;
}

export interface ServeOptions {
  /** Discovery documents are public metadata: any origin may read them (and their ETag and Link). */
  cors: boolean;
  headers?: Record<string, string>;
}

const CACHE_CONTROL = 'public, max-age=300';

export function prepareDocument(body: string | Buffer, contentType: string): CachedDocument {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return { body: bytes, contentType, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` };
}

export function prepareJsonDocument(
  value: unknown,
  contentType = 'application/json; charset=utf-8',
): CachedDocument {
  return prepareDocument(`${JSON.stringify(value, null, 2)}\n`, contentType);
}

/**
 * Whether an If-None-Match header matches the current tag. RFC 9110 §13.1.2: `*` matches any
 * current representation, and the comparison is weak, so `W/"x"` matches `"x"`.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (value === '*') return true;
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag);
}

/** Sends the document, or 304 without a body when the client already holds these bytes. */
export function serveDocument(
  request: FastifyRequest,
  reply: FastifyReply,
  document: CachedDocument,
  options: ServeOptions,
): FastifyReply {
  reply.header('etag', document.etag).header('cache-control', CACHE_CONTROL);
  if (options.cors) {
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'GET, HEAD')
      .header('access-control-allow-headers', 'Content-Type, If-None-Match')
      .header('access-control-expose-headers', 'ETag, Link');
  }
  if (options.headers !== undefined) reply.headers(options.headers);
  if (ifNoneMatchMatches(request.headers['if-none-match'], document.etag)) return reply.code(304).send();
  return reply.code(200).type(document.contentType).send(document.body);
}
