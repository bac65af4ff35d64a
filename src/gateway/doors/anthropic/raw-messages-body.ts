import type { FastifyRequest } from 'fastify';
import type { TypedInstance } from '../../http/typed-instance.ts';

/** Each request's JSON body as the text it arrived as, for as long as the request lives. */
const rawBodies = new WeakMap<FastifyRequest, string>();

/**
 * Keeps the text of the Anthropic door's JSON bodies beside their parsed value: the same-vendor
 * lane (CONTRACT 5.2) sends the client's bytes upstream with only `model` changed, and bytes
 * written again from the parsed value would differ (number forms, escapes, spacing). Parsed by
 * Fastify's own JSON parser with its defaults (prototype poisoning refused), so every answer to a
 * bad body stays what it was; the body limit is the instance's.
 */
export function keepRawJsonBodies(door: TypedInstance): void {
  const parseJson = door.getDefaultJsonParser('error', 'error');
  door.removeContentTypeParser('application/json');
  door.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    rawBodies.set(request, body as string);
    parseJson(request, body as string, done);
  });
}

/** The body's text, when it came through keepRawJsonBodies' parser. */
export function rawBodyOf(request: FastifyRequest): string | undefined {
  return rawBodies.get(request);
}
