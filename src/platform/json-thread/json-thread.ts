import { type ResourceLimits, Worker } from 'node:worker_threads';
import { DependencyUnavailableError } from '../dependency-unavailable.ts';
import { OnDemandWorker } from '../on-demand-worker.ts';
import type { JsonThreadReply, JsonThreadRequest } from './json-thread-protocol.ts';
import { ownedBytes } from './owned-bytes.ts';
import { parseJsonBody } from './parse-json-body.ts';

/**
 * Bodies from this many bytes on are parsed on the JSON thread, and upstream bodies from this many
 * characters of text on are written there. Below it the event loop does the work itself: a 256 KiB
 * body costs it about half a millisecond to decode and parse (a 1 MiB one 2 ms, and 2 more to write
 * it again for the upstream: docs/performance.md, "Agent traffic"), about what the round trip to
 * the thread and the copy of the parsed value back cost for a body of that size.
 */
export const OFF_THREAD_BYTES = 256 * 1024;

/** From src/ the worker is TypeScript; in the bundle it is an entry point of its own (decision 0011). */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./json-thread-worker.ts', import.meta.url)
  : new URL('./json-thread-worker.js', import.meta.url);

const DEPENDENCY = 'the JSON thread';

/** A body the JSON thread read and found not to be JSON (or to poison a prototype). */
export class JsonThreadInvalidJson extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonThreadInvalidJson';
  }
}

interface Call {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The thread's young generation (V8 would otherwise let npm start's --max-semi-space-size win:
 * platform/worker-young-generation.ts). Its old generation is left at V8's default, the same as
 * the main thread's, which read every body before this thread existed: the thread must hold what
 * the event loop held. Past it the thread dies, not the process.
 */
const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16 };

/**
 * A thread with no call for this long is ended, and its isolate's memory given back: after one
 * 1 MiB prompt the gateway held 150-152 MiB of RSS with the thread against 141 MiB without it, and
 * 143-146 MiB once the thread was ended (`bench/results/2026-11-28-json-thread-rss.md`). The next
 * large body starts a new one (tens of milliseconds, that body's wait only).
 */
const IDLE_MS = 30_000;

export interface JsonThreadOptions {
  /** The worker's module (tests give one they can kill). */
  workerUrl?: URL;
  resourceLimits?: ResourceLimits;
  /** How long the thread may go without a call before it is ended. */
  idleMs?: number;
}

/**
 * A worker thread for the JSON of large bodies: a request body of a megabyte takes the event loop
 * about 2 ms to decode and parse and 2 more to write again for the upstream, and every other
 * request waits that long behind it (the head-of-line case of issue 33). Here the bytes are handed
 * over without a copy, and what comes back is the parsed value (copied into the main heap by the
 * structured clone, a memory copy for the long strings an agent's prompt is made of) or the
 * written bytes (handed back without a copy).
 *
 * Started by the first large body, unref'd while no call is in flight, ended after IDLE_MS without
 * one. If it dies (out of memory, a crash) the calls on it reject with DependencyUnavailableError,
 * which the edge answers 503 with Retry-After (a parse: its bytes went to the dead thread), or
 * which the writer answers by writing on the event loop (a write: the value is still here); the
 * next call starts a new thread.
 */
export class JsonThread {
  readonly #worker: OnDemandWorker<Call, JsonThreadReply>;

  constructor(options: JsonThreadOptions = {}) {
    const workerUrl = options.workerUrl ?? WORKER_URL;
    const resourceLimits = options.resourceLimits ?? RESOURCE_LIMITS;
    this.#worker = new OnDemandWorker(
      DEPENDENCY,
      {
        create: () => new Worker(workerUrl, { name: 'json', resourceLimits }),
        answer: answerCall,
        lost: (calls, cause) => {
          const error = new DependencyUnavailableError(DEPENDENCY, cause);
          for (const call of calls) call.reject(error);
        },
      },
      options.idleMs ?? IDLE_MS,
    );
  }

  /**
   * The JSON of `bytes` as `parseJsonBody` reads it; rejects with JsonThreadInvalidJson when it is
   * not JSON. The bytes are moved to the thread: the caller must not read them again.
   */
  parse(bytes: Buffer): Promise<unknown> {
    const owned = ownedBytes(bytes);
    const buffer = owned.buffer as ArrayBuffer;
    return this.#call(
      {
        id: this.#worker.nextId(),
        op: 'parse',
        bytes: buffer,
        byteOffset: owned.byteOffset,
        byteLength: owned.byteLength,
      },
      [buffer],
    );
  }

  /**
   * Whether `bytes` are JSON as `parseJsonBody` reads them, without the value: resolves with the
   * same bytes (moved to the thread and back, never copied), rejects with JsonThreadInvalidJson
   * when they are not. For a body that is passed on rather than read (the same-vendor lanes).
   */
  async check(bytes: Buffer): Promise<Buffer> {
    const owned = ownedBytes(bytes);
    const buffer = owned.buffer as ArrayBuffer;
    const reply = (await this.#call(
      {
        id: this.#worker.nextId(),
        op: 'check',
        bytes: buffer,
        byteOffset: owned.byteOffset,
        byteLength: owned.byteLength,
      },
      [buffer],
    )) as { bytes: ArrayBuffer; byteOffset: number; byteLength: number };
    return Buffer.from(reply.bytes, reply.byteOffset, reply.byteLength);
  }

  /** `JSON.stringify(value)` as UTF-8 bytes; rejects where the value cannot be sent or written. */
  async stringify(value: unknown): Promise<Buffer> {
    const reply = (await this.#call({ id: this.#worker.nextId(), op: 'stringify', value }, [])) as {
      bytes: ArrayBuffer;
      byteOffset: number;
      byteLength: number;
    };
    return Buffer.from(reply.bytes, reply.byteOffset, reply.byteLength);
  }

  /** Calls not answered yet. */
  get pending(): number {
    return this.#worker.pending;
  }

  /** Whether a thread is running now (started by a call, ended when idle, closed or dead). */
  get running(): boolean {
    return this.#worker.running;
  }

  /** Ends the thread; calls not answered yet reject. A later call would start a new one. */
  close(): Promise<void> {
    return this.#worker.close(new Error('the JSON thread was closed'));
  }

  #call(request: JsonThreadRequest, transfer: ArrayBuffer[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Throws (no thread, or a value that cannot be cloned) before anything is moved or kept.
      this.#worker.send(request.id, { resolve, reject }, request, transfer);
    });
  }
}

/** A reply given to its call. */
function answerCall(call: Call, reply: JsonThreadReply): void {
  if ('returned' in reply) {
    // Too deep to cross back: read here, as before the thread.
    const bytes = Buffer.from(reply.returned, reply.byteOffset, reply.byteLength);
    try {
      call.resolve(parseJsonBody(bytes.toString('utf8')));
    } catch (error) {
      call.reject(new JsonThreadInvalidJson(error instanceof Error ? error.message : String(error)));
    }
  } else if (!reply.ok) call.reject(new JsonThreadInvalidJson(reply.message));
  else call.resolve('value' in reply ? reply.value : reply);
}

let shared: JsonThread | undefined;

/**
 * The process's JSON thread (both surfaces of `npm start` share it). Never closed: it is unref'd
 * while idle, and ends with the process.
 */
export function sharedJsonThread(): JsonThread {
  shared ??= new JsonThread();
  return shared;
}
