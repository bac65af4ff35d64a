import { ApiError } from '../../../platform/errors.ts';

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Requests waiting for the usage ledger's backlog to drop below its high-water mark. Each waits
 * at most `maxWaitMs`: a ledger that is down for an hour must not hold every client for an hour,
 * so past the wait the request is refused with a 503 the client can retry, and no record is lost
 * (the refused request never ran, so it has none).
 */
export class RoomWaiters {
  readonly #maxWaitMs: number;
  readonly #retryAfterSeconds: number;
  #waiters = new Set<Waiter>();

  constructor(maxWaitMs: number, retryAfterSeconds: number) {
    this.#maxWaitMs = maxWaitMs;
    this.#retryAfterSeconds = retryAfterSeconds;
  }

  get size(): number {
    return this.#waiters.size;
  }

  wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(
            new ApiError('service_unavailable', 'the usage ledger is behind; retry later', {
              headers: { 'retry-after': String(this.#retryAfterSeconds) },
            }),
          );
        }, this.#maxWaitMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Lets every waiting request go on. */
  release(): void {
    if (this.#waiters.size === 0) return;
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }
}
