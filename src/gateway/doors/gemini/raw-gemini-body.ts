import type { FastifyRequest } from 'fastify';
import { parsedBody } from '../../../platform/json-thread/deferred-json-body.ts';
import { parseJsonBodiesOffThread } from '../../../platform/json-thread/json-body-parser.ts';
import { bodyWasRewritten } from '../../http/guard-input.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';

/** Each request's JSON body as the bytes it arrived as, for as long as the request lives. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * Keeps the bytes of the door's JSON bodies beside their parsed value: the same-vendor lane
 * (CONTRACT 6.3) sends them upstream untouched (the model is in the path), and bytes written again
 * from the parsed value would differ (number forms, escapes, spacing) from what the client signed
 * and cached. Parsed as every JSON body is (Fastify's answers to a bad body, a large one on the
 * JSON thread; a large one of the lane's routes only checked there, and parsed when read).
 */
export function keepRawGeminiBodies(door: TypedInstance): void {
  parseJsonBodiesOffThread(door, {
    keepBytes: (request, bytes) => rawBodies.set(request, bytes),
    // The lane reads its bytes: a large body is checked on the JSON thread and parsed only if read
    // (deferred-json-body.ts). Embeddings and countTokens read it whole, as before.
    defer: (request) => GENERATE.test(request.url),
  });
}

/** A generateContent or streamGenerateContent path, which the lane serves. */
const GENERATE = /:(stream)?generateContent(\?|$)/i;

export function rawGeminiBodyOf(request: FastifyRequest): Buffer | undefined {
  return rawBodies.get(request);
}

/** The bytes the lane reads and sends: as they came, or as the gateway writes a body an input guard masked. */
export function laneBytesOf(request: FastifyRequest): Buffer {
  return (
    (bodyWasRewritten(request) ? undefined : rawBodies.get(request)) ??
    // A request with no body has no bytes and no value: `null` is read as the door's 400.
    Buffer.from(JSON.stringify(parsedBody(request)) ?? 'null')
  );
}
