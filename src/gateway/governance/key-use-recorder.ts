import type { Logger } from '../../platform/logger.ts';
import type { GovernanceStore } from '../../storage/governance-ports.ts';

/**
 * Keys' `lastUsedAt`, to the minute, written in batches (CONTRACT 6.5): the verifier notes a key
 * once a minute at most (an entry per key, so memory is bounded by the keys that exist), and the
 * notes are written together every `flushMs` and at shutdown, one statement per key in one
 * transaction. A failed write keeps its notes for the next flush (a newer minute replaces an older
 * one), so a database outage loses no use, only delays it.
 */
export class KeyUseRecorder {
  readonly #store: GovernanceStore;
  readonly #logger: Logger | undefined;
  readonly #pending = new Map<string, { app: string; id: string; minute: number }>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> | undefined;

  constructor(store: GovernanceStore, logger?: Logger, flushMs = 30_000) {
    this.#store = store;
    this.#logger = logger;
    this.#timer = setInterval(() => {
      void this.flush();
    }, flushMs);
    this.#timer.unref();
  }

  /** The verifier's KeyUseListener. */
  readonly note = (app: string, id: string, minute: number): void => {
    const key = `${app}\u0000${id}`;
    const known = this.#pending.get(key);
    if (known === undefined || known.minute < minute) this.#pending.set(key, { app, id, minute });
  };

  get pending(): number {
    return this.#pending.size;
  }

  flush(): Promise<void> {
    this.#flushing ??= this.#write().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
    try {
      await this.#store.touchKeys(batch);
    } catch (error) {
      for (const use of batch) this.note(use.app, use.id, use.minute);
      this.#logger?.warn(
        { err: error, keys: batch.length },
        "keys' last use not written; kept for the next try",
      );
    }
  }
}
