import type { Logger } from '../../platform/logger.ts';
import type { GovernanceStore } from '../../storage/governance-ports.ts';
import { GovernanceSnapshot } from './governance-snapshot.ts';

export interface GovernanceCacheOptions {
  /** How often the store's version is read; a change made anywhere holds here within this (and a read). */
  pollMs?: number;
}

/**
 * The governance snapshot of this instance, kept up to date by reading the store's version every
 * second and, when it moved, the rows past the version held (decision 0026): a change made on any
 * instance, the CLI included, holds here within about a second. While the store cannot be read,
 * the last snapshot stays in force (requests keep being served as they were; a warning is logged
 * once per outage) and the next poll catches up. Changes made through this instance's admin API
 * are applied at once (`refresh`), so its own answers never lag.
 */
export class GovernanceCache {
  readonly snapshot = new GovernanceSnapshot();
  readonly #store: GovernanceStore;
  readonly #logger: Logger | undefined;
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #reads: Promise<void> = Promise.resolve();
  #failing = false;

  constructor(store: GovernanceStore, logger?: Logger, options: GovernanceCacheOptions = {}) {
    this.#store = store;
    this.#logger = logger;
    this.#pollMs = options.pollMs ?? 1_000;
  }

  /** Reads everything once, then polls. */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.#poll().catch(() => {});
    }, this.#pollMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Applies every change past the version held. Reads run one after another, never side by side:
   * a read applied after a later one would put older rows back under a newer version.
   */
  refresh(): Promise<void> {
    const next = this.#reads.then(() => this.#readChanges());
    this.#reads = next.catch(() => {});
    return next;
  }

  async #readChanges(): Promise<void> {
    const changes = await this.#store.changesSince(this.snapshot.version);
    this.snapshot.apply(changes);
  }

  /**
   * Reads the store's version now rather than at the next poll: another instance announced a
   * change (a Redis message, decision 0026). A nudge while a read is running waits for it.
   */
  nudge(): void {
    this.#poll().catch(() => {});
  }

  async #poll(): Promise<void> {
    try {
      const version = await this.#store.version();
      if (version > this.snapshot.version) await this.refresh();
      if (this.#failing)
        this.#logger?.info('governance store readable again: teams, apps and keys up to date');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing)
        this.#logger?.warn(
          { err: error },
          'governance store unreadable: teams, apps and keys stay as last read until it answers',
        );
      this.#failing = true;
    }
  }
}
