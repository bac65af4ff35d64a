import { type ResourceLimits, Worker } from 'node:worker_threads';
import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import type { Logger } from '../../platform/logger.ts';
import { type AnswerCut, answerOf } from '../domain/answer-cut.ts';
import type { AnswerLimits, TokenizedAnswer, Tokenizer } from '../domain/token-count.ts';
import type { TokenizerReply, TokenizerRequest } from './tokenizer-protocol.ts';

/**
 * Characters of text on the thread at once. A count carries its whole texts (a prompt up to
 * MAX_BODY_BYTES: 4 MiB), copied into the thread's heap; past this, calls wait on this side, in
 * order, holding only references to texts their requests hold anyway. A call larger than the
 * bound goes alone.
 */
export const MAX_IN_FLIGHT_CHARS = 16 * 1024 * 1024;

/**
 * The thread's heap. The old generation holds the library's tables (about 40 MB) and the texts in
 * flight (MAX_IN_FLIGHT_CHARS: up to 32 MB, two bytes a character): four 4 Mi-character CJK
 * answers at once, the heaviest load the bound lets in, needed more than 96 MB and fit in 128.
 * Past the limit the thread dies (see below), not the process. The work itself is short-lived
 * garbage, which a small young generation collects as well. (V8 would let npm start's
 * --max-semi-space-size win over this limit; src/main.ts clears that flag once the main thread's
 * heap is set up: platform/worker-young-generation.ts.)
 */
const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 160 };

/** From src/ the worker is TypeScript; in the bundle it is an entry point of its own (decision 0011). */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./tokenizer-worker.ts', import.meta.url)
  : new URL('./tokenizer-worker.js', import.meta.url);

const DEPENDENCY = 'the tokenizer';

interface Call {
  request: TokenizerRequest;
  chars: number;
  /** Sent again once already, after the thread it was on died. */
  resent: boolean;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export interface TokenizerThreadOptions {
  /** The worker's module (tests give one they can kill). */
  workerUrl?: URL;
  resourceLimits?: ResourceLimits;
  maxInFlightChars?: number;
  /** Where a thread's death is reported. */
  logger?: Logger;
}

/**
 * The gateway's `Tokenizer`, on a worker thread of its own: o200k's tables (about 110 ms of CPU to
 * build, 40 MB of heap) are loaded there and every count runs there, so the event loop never
 * waits for token work, on first use or after. Each call costs a message each way.
 *
 * The thread is started by the first call, not with the gateway (a gateway whose upstreams report
 * usage never needs it), and is unref'd while no call is in flight, so it never keeps the process
 * alive. If it dies (out of memory, a crash), the calls on it are sent once more to a new thread;
 * a call whose second thread dies too rejects with DependencyUnavailableError (503 with
 * Retry-After at the edge), and the next call starts a new thread. `close()` ends it with the
 * gateway.
 */
export class TokenizerThread implements Tokenizer {
  readonly #workerUrl: URL;
  readonly #resourceLimits: ResourceLimits;
  readonly #maxInFlightChars: number;
  readonly #logger: Logger | undefined;
  /** Sent to the current thread, by id, in the order sent. */
  readonly #inFlight = new Map<number, Call>();
  /** Not sent yet: the thread holds MAX_IN_FLIGHT_CHARS already. */
  readonly #waiting: Call[] = [];
  #inFlightChars = 0;
  #worker: Worker | undefined;
  #nextId = 0;
  /**
   * Requests made in this turn of the event loop, sent as one message once it ends (a simulated
   * chat asks for its prompt's count and its answer's tokens together): 22 against 36 µs for the
   * pair, measured one pair at a time.
   */
  #outbox: TokenizerRequest[] = [];

  constructor(options: TokenizerThreadOptions = {}) {
    this.#workerUrl = options.workerUrl ?? WORKER_URL;
    this.#resourceLimits = options.resourceLimits ?? RESOURCE_LIMITS;
    this.#maxInFlightChars = options.maxInFlightChars ?? MAX_IN_FLIGHT_CHARS;
    this.#logger = options.logger;
  }

  count(texts: string | readonly string[]): Promise<number> {
    const list = typeof texts === 'string' ? [texts] : texts;
    let chars = 0;
    for (const text of list) chars += text.length;
    // Nothing to count: no message, and no thread started for it.
    if (chars === 0) return Promise.resolve(0);
    return this.#call({ id: this.#nextId++, op: 'count', texts: list }, chars);
  }

  async tokenizeAnswer(content: string, limits: AnswerLimits): Promise<TokenizedAnswer> {
    const cut = await this.#call<AnswerCut>(
      { id: this.#nextId++, op: 'answer', content, limits },
      content.length,
    );
    return answerOf(content, cut);
  }

  /** Calls not answered yet, on the thread or waiting for room there. */
  get pending(): number {
    return this.#inFlight.size + this.#waiting.length;
  }

  /** Ends the thread; calls not answered yet reject. A later call would start a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    const error = new DependencyUnavailableError(DEPENDENCY, new Error('the tokenizer thread was closed'));
    const unanswered = [...this.#inFlight.values(), ...this.#waiting];
    this.#inFlight.clear();
    this.#waiting.length = 0;
    this.#outbox = [];
    this.#inFlightChars = 0;
    for (const call of unanswered) call.reject(error);
    await worker?.terminate();
  }

  #call<T>(request: TokenizerRequest, chars: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({
        request,
        chars,
        resent: false,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.#sendWaiting();
    });
  }

  /** Sends waiting calls in order while the thread has room; with none in flight, the next goes whatever its size. */
  #sendWaiting(): void {
    for (let call = this.#waiting[0]; call !== undefined; call = this.#waiting[0]) {
      if (this.#inFlight.size > 0 && this.#inFlightChars + call.chars > this.#maxInFlightChars) break;
      this.#waiting.shift();
      this.#inFlightChars += call.chars;
      this.#send(call);
    }
  }

  #send(call: Call): void {
    const worker = this.#worker ?? this.#start();
    this.#inFlight.set(call.request.id, call);
    // A thread with work keeps the process alive until the work is answered; an idle one does not.
    if (this.#inFlight.size === 1) worker.ref();
    if (this.#outbox.length === 0) queueMicrotask(() => this.#flush());
    this.#outbox.push(call.request);
  }

  #flush(): void {
    const requests = this.#outbox;
    this.#outbox = [];
    this.#worker?.postMessage(requests);
  }

  #start(): Worker {
    const worker = new Worker(this.#workerUrl, { name: 'tokenizer', resourceLimits: this.#resourceLimits });
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (replies: TokenizerReply[]) => {
      for (const reply of replies) this.#answered(worker, reply);
    });
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) =>
      this.#died(worker, failure ?? new Error(`the tokenizer thread exited with code ${code}`)),
    );
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, reply: TokenizerReply): void {
    const call = this.#inFlight.get(reply.id);
    if (call === undefined) return;
    this.#inFlight.delete(reply.id);
    this.#inFlightChars -= call.chars;
    this.#sendWaiting();
    if (this.#inFlight.size === 0) worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(new Error(`the tokenizer failed: ${reply.message}`));
  }

  /**
   * A thread that died with calls on it (they are what killed it, as often as not): each is sent
   * once more, to a new thread, in the order first sent; one that was resent already rejects.
   */
  #died(worker: Worker, cause: Error): void {
    if (this.#worker !== worker) return; // closed
    this.#worker = undefined;
    const calls = [...this.#inFlight.values()];
    this.#inFlight.clear();
    const error = new DependencyUnavailableError(DEPENDENCY, cause);
    const failed = calls.filter((call) => call.resent);
    for (const call of failed) {
      this.#inFlightChars -= call.chars;
      call.reject(error);
    }
    const resent = calls.filter((call) => !call.resent);
    for (const call of resent) {
      call.resent = true;
      this.#send(call);
    }
    this.#logger?.error(
      { err: cause, resent: resent.length, failed: failed.length },
      'the tokenizer thread died; its calls were sent to a new one, or failed if they had been already',
    );
    this.#sendWaiting();
  }
}
