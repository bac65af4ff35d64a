import type { FastifyRequest } from 'fastify';
import { parseJsonBodiesOffThread } from '../../../platform/json-thread/json-body-parser.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';

/** Each request's JSON body as the bytes it arrived as, for as long as the request lives. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * Keeps the bytes of the door's JSON bodies beside their parsed value: the same-vendor lane
 * (CONTRACT 6.3) sends them upstream untouched (the model is in the path), and bytes written again
 * from the parsed value would differ (number forms, escapes, spacing) from what the client signed
 * and cached. Parsed as every JSON body is (Fastify's answers to a bad body, a large one on the
 * JSON thread).
 */
export function keepRawGeminiBodies(door: TypedInstance): void {
  parseJsonBodiesOffThread(door, { keepBytes: (request, bytes) => rawBodies.set(request, bytes) });
}

export function rawGeminiBodyOf(request: FastifyRequest): Buffer | undefined {
  return rawBodies.get(request);
}
