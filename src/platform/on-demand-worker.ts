import type { Worker } from 'node:worker_threads';

/** What an on-demand worker's user does with its calls' answers and with calls the worker lost. */
export interface OnDemandWorkerHandlers<Call, Reply extends { id: number }> {
  /** Makes the worker (the first call, and the first after the last one ended). */
  create(): Worker;
  /** A reply to a call in flight. */
  answer(call: Call, reply: Reply): void;
  /**
   * The calls in flight when the worker ended (it died: `cause` is its error or its exit code) or
   * was closed: they will get no reply.
   */
  lost(calls: Call[], cause: Error): void;
}

/**
 * A worker thread started by the first call and ended after `idleMs` without one: the JSON thread
 * (platform/json-thread) and the guardrails' scan thread each hold one. It keeps the process alive
 * only while a call is in flight (it is unref'd while idle), matches each reply to its call by
 * `id`, and when the worker dies hands the calls it held back to its user, never leaving one
 * waiting. A later call starts a new worker.
 */
export class OnDemandWorker<Call, Reply extends { id: number }> {
  readonly #handlers: OnDemandWorkerHandlers<Call, Reply>;
  readonly #idleMs: number;
  readonly #inFlight = new Map<number, Call>();
  #worker: Worker | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #nextId = 0;

  /** What an exit's error calls the worker ("the JSON thread"). */
  readonly name: string;

  constructor(name: string, handlers: OnDemandWorkerHandlers<Call, Reply>, idleMs: number) {
    this.name = name;
    this.#handlers = handlers;
    this.#idleMs = idleMs;
  }

  /** A fresh id for the next call's message. */
  nextId(): number {
    return this.#nextId++;
  }

  /**
   * Posts `message` (whose `id` is `id`) to the worker, started here if none runs, and keeps `call`
   * until its reply. Throws, with nothing kept, when no worker can start or the message cannot be
   * sent (a value that cannot be cloned).
   */
  send(id: number, call: Call, message: unknown, transfer: readonly ArrayBuffer[] = []): void {
    clearTimeout(this.#idleTimer);
    const worker = this.#worker ?? this.#start();
    try {
      worker.postMessage(message, transfer as ArrayBuffer[]);
    } catch (error) {
      // Nothing was sent: an idle worker is still ended after the idle time.
      if (this.#inFlight.size === 0) this.#idleAfterNow(worker);
      throw error;
    }
    this.#inFlight.set(id, call);
    // A worker with work keeps the process alive until the work is answered; an idle one does not.
    if (this.#inFlight.size === 1) worker.ref();
  }

  /** Calls not answered yet. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /** Whether a worker is running now (started by a call, ended when idle, closed or dead). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Ends the worker; the calls in flight are handed to `lost` with `cause`. */
  async close(cause: Error): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#idleTimer);
    this.#loseAll(cause);
    await worker?.terminate();
  }

  #start(): Worker {
    const worker = this.#handlers.create();
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (reply: Reply) => this.#answered(worker, reply));
    worker.on('error', (error) => {
      failure = error;
    });
    // A reply that cannot be read here names no call: end the worker, which hands back the calls
    // on it, rather than leave one waiting for ever.
    worker.on('messageerror', (error) => {
      failure = error;
      void worker.terminate();
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return; // closed, or retired while idle
      this.#worker = undefined;
      this.#loseAll(failure ?? new Error(`${this.name} exited with code ${code}`));
    });
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, reply: Reply): void {
    const call = this.#inFlight.get(reply.id);
    if (call === undefined) return;
    this.#inFlight.delete(reply.id);
    if (this.#inFlight.size === 0) this.#idleAfterNow(worker);
    this.#handlers.answer(call, reply);
  }

  /** The worker has no call: it no longer keeps the process alive, and ends after the idle time. */
  #idleAfterNow(worker: Worker): void {
    worker.unref();
    this.#idleTimer = setTimeout(() => this.#retire(worker), this.#idleMs).unref();
  }

  /** Ends a worker that went the idle time without a call. */
  #retire(worker: Worker): void {
    if (this.#worker !== worker || this.#inFlight.size > 0) return;
    this.#worker = undefined;
    void worker.terminate();
  }

  #loseAll(cause: Error): void {
    if (this.#inFlight.size === 0) return;
    const calls = [...this.#inFlight.values()];
    this.#inFlight.clear();
    this.#handlers.lost(calls, cause);
  }
}
