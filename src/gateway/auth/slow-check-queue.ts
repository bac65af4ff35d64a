/**
 * Runs slow credential checks (scrypt) one or a few at a time, at most `perSecond` a second on
 * average (a token bucket holding `burst`), with a bounded line of waiting ones. A scrypt
 * derivation takes tens of milliseconds of a libuv thread: without a bound, a stranger sending
 * wrong secrets would keep threads of the pool and the cores busy, and slow every caller (file
 * reads, DNS and other crypto share that pool). A check that finds no token or the line full is not
 * run at all: the caller answers it as throttled. Right secrets pay this once, as the verification
 * is cached; only wrong ones keep coming, and they get at most this share of the machine.
 */
export class SlowCheckQueue {
  readonly #concurrency: number;
  readonly #maxWaiting: number;
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #waiting: Array<() => void> = [];
  #running = 0;
  #tokens: number;
  #filledAt: number;

  constructor(options: {
    concurrency: number;
    maxWaiting: number;
    perSecond: number;
    burst: number;
    now: () => number;
  }) {
    this.#concurrency = options.concurrency;
    this.#maxWaiting = options.maxWaiting;
    this.#perSecond = options.perSecond;
    this.#burst = options.burst;
    this.#now = options.now;
    this.#tokens = options.burst;
    this.#filledAt = options.now();
  }

  /** Checks running and waiting (tests and metrics read it). */
  get load(): number {
    return this.#running + this.#waiting.length;
  }

  /** The check's result, or undefined when it was not started (no token, or the line is full). */
  tryRun<T>(check: () => Promise<T>): Promise<T> | undefined {
    if (!this.#takeToken()) return undefined;
    if (this.#running < this.#concurrency) return this.#start(check);
    if (this.#waiting.length >= this.#maxWaiting) return undefined;
    return new Promise<void>((resolve) => this.#waiting.push(resolve)).then(() => this.#start(check));
  }

  #takeToken(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#filledAt) / 1000) * this.#perSecond);
    this.#filledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  async #start<T>(check: () => Promise<T>): Promise<T> {
    this.#running++;
    try {
      return await check();
    } finally {
      this.#running--;
      const next = this.#waiting.shift();
      if (next !== undefined) next();
    }
  }
}
