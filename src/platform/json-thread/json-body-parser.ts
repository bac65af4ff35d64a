import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';
import { DependencyUnavailableError } from '../dependency-unavailable.ts';
import { DEFERRED_BODY, deferJsonBody } from './deferred-json-body.ts';
import { type JsonThread, JsonThreadInvalidJson, OFF_THREAD_BYTES, sharedJsonThread } from './json-thread.ts';
import { parseJsonBody } from './parse-json-body.ts';

type Done = (error: Error | null, body?: unknown) => void;

export interface JsonBodyParserOptions {
  /** Called with each body's bytes before they are read (the Anthropic door keeps them). */
  keepBytes?: (request: FastifyRequest, bytes: Buffer) => void;
  /** The thread to use (tests give their own); by default the process's. */
  thread?: JsonThread;
  /**
   * Whether a large body of this request is only checked on the thread and parsed when first read
   * (deferred-json-body.ts): a same-vendor lane's route, which reads its body's bytes.
   */
  defer?: (request: FastifyRequest) => boolean;
}

/**
 * Replaces `app`'s JSON body parser with one that answers as Fastify's default does (the same
 * parse, the same 400s for an empty body, bad JSON or prototype poisoning), but reads a body of
 * OFF_THREAD_BYTES or more on the JSON thread, so the event loop never holds a megabyte prompt
 * while every other request waits (issue 33's head-of-line case). Should the thread die with the
 * body on it, the request is answered 503 with Retry-After (its bytes went with the thread), and so
 * is a body whose thread ends before it starts (its module missing: the bundle's test guards the
 * entry point); should no thread be created at all (the Worker constructor throws), the body is
 * read here as before. A route that passes its body on (`defer`) has a large body only checked on
 * the thread and parsed when something reads it (deferred-json-body.ts).
 */
export function parseJsonBodiesOffThread(app: FastifyInstance, options: JsonBodyParserOptions = {}): void {
  const thread = options.thread ?? sharedJsonThread();
  const keepBytes = options.keepBytes;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done: Done) => {
    const bytes = body as Buffer;
    if (bytes.length < OFF_THREAD_BYTES) {
      keepBytes?.(request, bytes);
      parseHere(bytes, done);
      return;
    }
    const deferring = options.defer?.(request) === true;
    const failed = (error: unknown) => {
      if (error instanceof JsonThreadInvalidJson) done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
      else if (error instanceof DependencyUnavailableError) done(error);
      else {
        // Never sent (no thread could start): the bytes are still here.
        if (deferring) keepBytes?.(request, bytes);
        parseHere(bytes, done);
      }
    };
    if (deferring) {
      // Moved to the thread and back (the thread's value stays there): no copy, no clone.
      thread.check(bytes).then((checked) => {
        keepBytes?.(request, checked);
        deferJsonBody(request, checked, thread);
        done(null, DEFERRED_BODY);
      }, failed);
      return;
    }
    keepBytes?.(request, bytes);
    // The kept bytes stay the caller's: the thread gets a copy of its own.
    thread
      .parse(keepBytes === undefined ? bytes : Buffer.from(bytes))
      .then((value) => done(null, value), failed);
  });
}

/** Fastify's default JSON parser, on the event loop. */
function parseHere(bytes: Buffer, done: Done): void {
  if (bytes.length === 0) {
    done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY());
    return;
  }
  let value: unknown;
  try {
    value = parseJsonBody(bytes.toString('utf8'));
  } catch {
    done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
    return;
  }
  done(null, value);
}
