import type { FastifyRequest } from 'fastify';
import { parseJsonBodiesOffThread } from '../../../platform/json-thread/json-body-parser.ts';
import { bodyWasRewritten } from '../../http/guard-input.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';

/** Each request's JSON body as the bytes it arrived as, for as long as the request lives. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * Keeps the bytes of the Anthropic door's JSON bodies beside their parsed value: the same-vendor
 * lane (CONTRACT 5.2) sends the client's bytes upstream with only `model` changed, and bytes
 * written again from the parsed value would differ (number forms, escapes, spacing). Parsed as
 * every JSON body is (json-body-parser.ts: Fastify's defaults, prototype poisoning refused, a large
 * body on the JSON thread), so every answer to a bad body stays what it was; the body limit is the
 * instance's. The bytes are never decoded: the lane reads its fields from them (read-relay-bytes.ts)
 * and splices `model` into them (domain/json-splice.ts); on `laneRoute` a large body is only
 * checked on the JSON thread, and parsed when something reads `request.body` (deferred-json-body.ts).
 */
export function keepRawJsonBodies(door: TypedInstance, laneRoute: string): void {
  parseJsonBodiesOffThread(door, {
    keepBytes: (request, bytes) => rawBodies.set(request, bytes),
    // The lane reads its bytes: a large body is checked on the JSON thread and parsed only if read.
    defer: (request) => request.routeOptions.url === laneRoute,
  });
}

/**
 * The body's bytes, when it came through keepRawJsonBodies' parser and no input guard masked
 * the parsed body (then the lane writes the masked body again: CONTRACT 6.6).
 */
export function rawBodyOf(request: FastifyRequest): Buffer | undefined {
  return bodyWasRewritten(request) ? undefined : rawBodies.get(request);
}
