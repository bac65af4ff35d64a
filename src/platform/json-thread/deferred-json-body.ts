import type { FastifyRequest } from 'fastify';
import type { JsonThread } from './json-thread.ts';
import { parseJsonBody } from './parse-json-body.ts';

/**
 * What `request.body` is while a deferred body is not parsed: an empty frozen object, which no
 * reading takes for a request (every door refuses it as a body without its required fields).
 */
export const DEFERRED_BODY: Readonly<Record<string, never>> = Object.freeze({});

interface Deferred {
  bytes: Buffer;
  thread: JsonThread;
}

const deferred = new WeakMap<FastifyRequest, Deferred>();

/**
 * Makes the request's body the JSON of `bytes` (already checked to be JSON), parsed when a reader
 * asks for it rather than now: a same-vendor lane (CONTRACT 5.2) passes a megabyte body on after
 * reading a few fields from its bytes, and never needs the value unless an attempt falls over to
 * another vendor, an input guard reads the prompt or the response cache keys it. Until then
 * `request.body` is DEFERRED_BODY; a reader calls `parsedBody` (parsed on the event loop) or, where
 * it can wait, `settleDeferredBody` first (parsed on the JSON thread); either sets `request.body`.
 * Fastify's `done` is given DEFERRED_BODY. (An accessor on `request.body` would need no readers'
 * help, but redefining a property of Fastify's Request objects cost V8's helper threads more than
 * the parse it saved: 13 M instructions per 1 MiB prompt, in recompilation and collection.)
 */
export function deferJsonBody(request: FastifyRequest, bytes: Buffer, thread: JsonThread): void {
  deferred.set(request, { bytes, thread });
}

/** Whether the request's body is deferred and nobody has parsed it yet. */
export function isBodyDeferred(request: FastifyRequest): boolean {
  return deferred.has(request);
}

/** The request's body, a deferred one parsed here first (on the event loop). */
export function parsedBody(request: FastifyRequest): unknown {
  const state = deferred.get(request);
  if (state !== undefined) settle(request, parseJsonBody(state.bytes.toString('utf8')));
  return request.body;
}

/**
 * Parses a deferred body nobody parsed yet on the JSON thread (its bytes copied there: they stay
 * the lane's), so that `request.body` is its value; nothing for any other request. Should the
 * thread be gone, the body is parsed here.
 */
export async function settleDeferredBody(request: FastifyRequest): Promise<void> {
  const state = deferred.get(request);
  if (state === undefined) return;
  let value: unknown;
  try {
    value = await state.thread.parse(Buffer.from(state.bytes));
  } catch {
    // The bytes were checked to be JSON: only a thread that could not answer lands here.
    value = parseJsonBody(state.bytes.toString('utf8'));
  }
  // A reader on the event loop may have parsed it meanwhile: its value (maybe masked) stands.
  if (deferred.has(request)) settle(request, value);
}

function settle(request: FastifyRequest, value: unknown): void {
  deferred.delete(request);
  request.body = value;
}
