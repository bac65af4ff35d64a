import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { OutboxEntry, SubscriberStore } from '../../storage/ports.ts';
import { type BackoffSettings, computeOutboxRetryDelay } from './outbox-backoff.ts';

export interface OutboxWorkerOptions {
  /** How often the outbox is looked at when nothing wakes the worker. */
  pollIntervalMs: number;
  batchSize: number;
  /** How long a claimed entry is hidden from other workers; longer than one delivery can take. */
  leaseMs: number;
  /** Deliveries of one entry, the first included, before it is marked failed. */
  maxAttempts: number;
  backoff: BackoffSettings;
  random: () => number;
}

/** 16 attempts, waits from 5 s doubling to 1 h: an upstream may be down three to six hours before an entry fails. */
export const OUTBOX_DEFAULTS: OutboxWorkerOptions = {
  pollIntervalMs: 5_000,
  batchSize: 20,
  leaseMs: 60_000,
  maxAttempts: 16,
  backoff: { baseMs: 5_000, maxMs: 3_600_000 },
  random: Math.random,
};

export type DeliverEntry = (entry: OutboxEntry, signal: AbortSignal) => Promise<void>;

const MAX_ERROR_LENGTH = 500;

/**
 * Delivers the newsletter outbox to the mailing-list upstream in the background. Because every
 * change was written to the outbox in the subscriber's own transaction, an upstream that is down
 * loses nothing: entries are retried with exponential backoff, and after `maxAttempts` they are
 * marked failed and kept for inspection. Entries are leased, not locked, so a crashed worker's
 * entries come back after the lease. stop() aborts the delivery under way (its entry is
 * rescheduled, not counted as a failure) and resolves when the loop has ended.
 */
export class OutboxWorker {
  readonly #store: SubscriberStore;
  readonly #deliver: DeliverEntry;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: OutboxWorkerOptions;
  readonly #stopSignal = new AbortController();
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #wokenWhileBusy = false;

  constructor(
    store: SubscriberStore,
    deliver: DeliverEntry,
    clock: Clock,
    logger: Logger,
    options: Partial<OutboxWorkerOptions> = {},
  ) {
    this.#store = store;
    this.#deliver = deliver;
    this.#clock = clock;
    this.#logger = logger;
    this.#options = { ...OUTBOX_DEFAULTS, ...options };
  }

  start(): void {
    if (this.#loop !== undefined || this.#stopSignal.signal.aborted) return;
    this.#loop = this.#run();
  }

  /** A new entry was written: look now rather than at the next poll. */
  wake(): void {
    if (this.#wakeUp === undefined) this.#wokenWhileBusy = true;
    else this.#wakeUp();
  }

  async stop(): Promise<void> {
    this.#stopSignal.abort();
    this.#wakeUp?.();
    await this.#loop;
  }

  /** One pass: claims the due entries and delivers them in order. Resolves how many it handled. */
  async deliverDue(): Promise<number> {
    const entries = await this.#store.claimOutbox(
      this.#clock.now(),
      this.#options.batchSize,
      this.#options.leaseMs,
    );
    let handled = 0;
    for (const entry of entries) {
      if (this.#stopSignal.signal.aborted) break;
      await this.#deliverOne(entry);
      handled++;
    }
    return handled;
  }

  async #run(): Promise<void> {
    while (!this.#stopSignal.signal.aborted) {
      let handled = 0;
      try {
        handled = await this.deliverDue();
      } catch (error) {
        this.#logger.error({ err: error }, 'newsletter outbox pass failed; trying again later');
      }
      // A full batch means there may be more due right now.
      if (handled < this.#options.batchSize) await this.#sleep(this.#options.pollIntervalMs);
    }
  }

  async #deliverOne(entry: OutboxEntry): Promise<void> {
    try {
      await this.#deliver(entry, this.#stopSignal.signal);
      await this.#store.markOutboxDelivered(entry.id, this.#clock.now());
      this.#logger.info(
        { outboxId: entry.id, subscriber: entry.subscriberId, attempts: entry.attempts + 1 },
        'newsletter change delivered to the mailing list',
      );
      return;
    } catch (error) {
      await this.#recordFailure(entry, error);
    }
  }

  async #recordFailure(entry: OutboxEntry, error: unknown): Promise<void> {
    const now = this.#clock.now();
    const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
    if (this.#stopSignal.signal.aborted) {
      // Cut off by shutdown: not the upstream's fault, so it does not count as an attempt.
      await this.#store.markOutboxAttemptFailed(
        entry.id,
        { attempts: entry.attempts, nextAttemptAt: now, error: 'interrupted by shutdown' },
        now,
      );
      return;
    }
    const attempts = entry.attempts + 1;
    const givingUp = attempts >= this.#options.maxAttempts;
    const nextAttemptAt = givingUp
      ? null
      : now + computeOutboxRetryDelay(attempts, this.#options.backoff, this.#options.random);
    await this.#store.markOutboxAttemptFailed(entry.id, { attempts, nextAttemptAt, error: message }, now);
    const details = { outboxId: entry.id, subscriber: entry.subscriberId, attempts, error: message };
    if (givingUp) this.#logger.error(details, 'newsletter change could not be delivered; marked failed');
    else this.#logger.warn({ ...details, nextAttemptAt }, 'newsletter change not delivered; will retry');
  }

  #sleep(ms: number): Promise<void> {
    if (this.#wokenWhileBusy || this.#stopSignal.signal.aborted) {
      this.#wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#wakeUp?.(), ms);
      this.#wakeUp = () => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
    });
  }
}
