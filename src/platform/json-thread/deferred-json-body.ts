import type { FastifyRequest } from 'fastify';
import type { JsonThread } from './json-thread.ts';
import { parseJsonBody } from './parse-json-body.ts';

/** What Fastify's parser hands on for a deferred body: set as `request.body`, and ignored by it. */
export const DEFERRED_BODY: unique symbol = Symbol('deferred JSON body');

interface Deferred {
  bytes: Buffer;
  thread: JsonThread;
  parsed: boolean;
  value: unknown;
}

const deferred = new WeakMap<FastifyRequest, Deferred>();

/**
 * Makes `request.body` the JSON of `bytes` (already checked to be JSON), parsed when something
 * first reads it rather than now: a same-vendor lane (CONTRACT 5.2) passes a megabyte body on
 * after reading a few fields from its bytes, and never needs the value unless an attempt falls over
 * to another vendor, an input guard reads the prompt or the response cache keys it. Whoever reads
 * `request.body` gets the value as before (parsed then, on the event loop); a reader that can wait
 * calls `settleDeferredBody` first, which parses on the JSON thread. Call before Fastify's `done`,
 * which is then given DEFERRED_BODY.
 */
export function deferJsonBody(request: FastifyRequest, bytes: Buffer, thread: JsonThread): void {
  const state: Deferred = { bytes, thread, parsed: false, value: undefined };
  deferred.set(request, state);
  Object.defineProperty(request, 'body', {
    configurable: true,
    enumerable: true,
    get() {
      if (!state.parsed) settle(state, parseJsonBody(state.bytes.toString('utf8')));
      return state.value;
    },
    set(value: unknown) {
      if (value !== DEFERRED_BODY) settle(state, value);
    },
  });
}

/** Whether the request's body is deferred and nothing has read it yet. */
export function isBodyDeferred(request: FastifyRequest): boolean {
  const state = deferred.get(request);
  return state !== undefined && !state.parsed;
}

/**
 * Parses a deferred body nobody read yet on the JSON thread (its bytes copied there: they stay
 * the lane's), so that the next read of `request.body` is free; nothing for any other request.
 * Should the thread be gone, the body is parsed here.
 */
export async function settleDeferredBody(request: FastifyRequest): Promise<void> {
  const state = deferred.get(request);
  if (state === undefined || state.parsed) return;
  let value: unknown;
  try {
    value = await state.thread.parse(Buffer.from(state.bytes));
  } catch {
    // The bytes were checked to be JSON: only a thread that could not answer lands here.
    value = parseJsonBody(state.bytes.toString('utf8'));
  }
  // A reader on the event loop may have parsed it meanwhile: its value (maybe masked) stands.
  if (!state.parsed) settle(state, value);
}

function settle(state: Deferred, value: unknown): void {
  state.parsed = true;
  state.value = value;
}
