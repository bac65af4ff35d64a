import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { GuardSettings } from '../../config/guardrail-settings.ts';
import type { CompiledGuard } from './compile-guards.ts';
import { type TextOutcome, textOutcome } from './text-outcome.ts';

/**
 * Texts of this many characters or more, together, are scanned on the scan thread. The built-in
 * detectors read about 20-60 ns a character on the 2-core box (the number reader most: every
 * digit starts a span), so a 1 MiB prompt held the event loop for tens of milliseconds, and every
 * other request waited behind it (decision 0029, "Large bodies"). 64 Ki characters cost the loop a
 * millisecond or two; below that the round trip to the thread (the texts cloned there and, when
 * masked, back) is most of what it would save.
 */
export const OFF_THREAD_CHARS = 64 * 1024;

/** From src/ the worker is TypeScript; in the bundle it is an entry point of its own (decision 0011). */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./guard-scan-worker.ts', import.meta.url)
  : new URL('./guard-scan-worker.js', import.meta.url);

/** As the JSON thread's (platform/json-thread): a young generation of its own, the old one V8's default. */
const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16 };
/** An idle thread is ended after this long; the next large scan starts another. */
const IDLE_MS = 30_000;

/** What the main thread asks: the named detector guards, in order, over each text. */
export interface ScanRequest {
  id: number;
  guards: string[];
  texts: string[];
}

/** Each text's outcome (a masked text is the only string that comes back). */
export type ScanReply =
  | { id: number; ok: true; outcomes: TextOutcome[] }
  | { id: number; ok: false; message: string };

interface Call {
  resolve(outcomes: TextOutcome[]): void;
  texts: readonly string[];
  guards: readonly CompiledGuard[];
}

/** Each text's outcome, here. */
export function outcomesHere(guards: readonly CompiledGuard[], texts: readonly string[]): TextOutcome[] {
  return texts.map((text) => textOutcome(guards, text));
}

export interface ScanThreadOptions {
  /** The worker's module (tests give one that dies). */
  workerUrl?: URL;
  idleMs?: number;
  threshold?: number;
}

/**
 * A worker thread for large scans: the configured detector guards compiled there once (from the
 * same settings), large texts sent by structured clone (a copy of their characters, far cheaper
 * than reading them through every detector) and each text's outcome sent back. The same function
 * decides on either side (`textOutcome`), so a verdict does not depend on a body's size.
 *
 * Started by the first large scan, unref'd while idle, ended after IDLE_MS without a call. A scan
 * never fails because of the thread: if it cannot start, dies, or answers an error, the texts
 * (still here) are scanned on the event loop, as before the thread.
 */
export class ScanThread {
  readonly #settings: readonly GuardSettings[];
  readonly #workerUrl: URL;
  readonly #idleMs: number;
  readonly #threshold: number;
  readonly #inFlight = new Map<number, Call>();
  #worker: Worker | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #nextId = 0;

  constructor(settings: readonly GuardSettings[], options: ScanThreadOptions = {}) {
    // Only detector guards run there; a webhook's URL and headers stay on the main thread.
    this.#settings = settings.filter((guard) => guard.type !== 'webhook');
    this.#workerUrl = options.workerUrl ?? WORKER_URL;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#threshold = options.threshold ?? OFF_THREAD_CHARS;
  }

  /** Whether texts of `size` characters in all are scanned here, on the event loop. */
  scansHere(size: number): boolean {
    return size < this.#threshold;
  }

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Each text's outcome under the guards, on the thread when the texts are large. */
  outcomes(
    guards: readonly CompiledGuard[],
    texts: readonly string[],
  ): TextOutcome[] | Promise<TextOutcome[]> {
    let size = 0;
    for (const text of texts) size += text.length;
    if (size < this.#threshold) return outcomesHere(guards, texts);
    return new Promise((resolve) => {
      const request: ScanRequest = {
        id: this.#nextId++,
        guards: guards.map((guard) => guard.name),
        texts: texts as string[],
      };
      let worker: Worker;
      try {
        clearTimeout(this.#idleTimer);
        worker = this.#worker ?? this.#start();
        worker.postMessage(request);
      } catch {
        resolve(outcomesHere(guards, texts));
        return;
      }
      this.#inFlight.set(request.id, { resolve, texts, guards });
      if (this.#inFlight.size === 1) worker.ref();
    });
  }

  /** Ends the thread; scans in flight finish on the event loop. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#idleTimer);
    this.#scanAllHere();
    await worker?.terminate();
  }

  #start(): Worker {
    const worker = new Worker(this.#workerUrl, {
      name: 'guard-scan',
      resourceLimits: RESOURCE_LIMITS,
      workerData: { guards: this.#settings },
    });
    worker.unref();
    worker.on('message', (reply: ScanReply) => this.#answered(worker, reply));
    worker.on('error', () => {
      // The exit that follows hands the scans in flight back to the event loop.
    });
    worker.on('messageerror', () => void worker.terminate());
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#scanAllHere();
    });
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, reply: ScanReply): void {
    const call = this.#inFlight.get(reply.id);
    if (call === undefined) return;
    this.#inFlight.delete(reply.id);
    if (this.#inFlight.size === 0) {
      worker.unref();
      this.#idleTimer = setTimeout(() => this.#retire(worker), this.#idleMs).unref();
    }
    call.resolve(reply.ok ? reply.outcomes : outcomesHere(call.guards, call.texts));
  }

  #retire(worker: Worker): void {
    if (this.#worker !== worker || this.#inFlight.size > 0) return;
    this.#worker = undefined;
    void worker.terminate();
  }

  /** The thread is gone: what it was scanning is scanned here (the texts never left). */
  #scanAllHere(): void {
    const calls = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const call of calls) call.resolve(outcomesHere(call.guards, call.texts));
  }
}
