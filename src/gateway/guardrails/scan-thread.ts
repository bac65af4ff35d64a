import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { GuardSettings } from '../../config/guardrail-settings.ts';
import { OnDemandWorker } from '../../platform/on-demand-worker.ts';
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
 * Started by the first large scan, unref'd while idle, ended after IDLE_MS without a call
 * (platform/on-demand-worker.ts). A scan never fails because of the thread: if it cannot start,
 * dies, or answers an error, the texts (still here) are scanned on the event loop, as before the
 * thread.
 */
export class ScanThread {
  readonly #threshold: number;
  readonly #worker: OnDemandWorker<Call, ScanReply>;

  constructor(settings: readonly GuardSettings[], options: ScanThreadOptions = {}) {
    // Only detector guards run there; a webhook's URL and headers stay on the main thread.
    const guards = settings.filter((guard) => guard.type !== 'webhook');
    const workerUrl = options.workerUrl ?? WORKER_URL;
    this.#threshold = options.threshold ?? OFF_THREAD_CHARS;
    this.#worker = new OnDemandWorker(
      'the guardrails scan thread',
      {
        create: () =>
          new Worker(workerUrl, {
            name: 'guard-scan',
            resourceLimits: RESOURCE_LIMITS,
            workerData: { guards },
          }),
        answer: (call, reply) =>
          call.resolve(reply.ok ? reply.outcomes : outcomesHere(call.guards, call.texts)),
        // The thread is gone: what it was scanning is scanned here (the texts never left).
        lost: (calls) => {
          for (const call of calls) call.resolve(outcomesHere(call.guards, call.texts));
        },
      },
      options.idleMs ?? IDLE_MS,
    );
  }

  /** Whether texts of `size` characters in all are scanned here, on the event loop. */
  scansHere(size: number): boolean {
    return size < this.#threshold;
  }

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.#worker.running;
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
        id: this.#worker.nextId(),
        guards: guards.map((guard) => guard.name),
        texts: texts as string[],
      };
      try {
        this.#worker.send(request.id, { resolve, texts, guards }, request);
      } catch {
        resolve(outcomesHere(guards, texts));
      }
    });
  }

  /** Ends the thread; scans in flight finish on the event loop. */
  close(): Promise<void> {
    return this.#worker.close(new Error('the guardrails scan thread was closed'));
  }
}
