import type { LedgerInsights, RefusalCount } from '../../storage/ledger-insights.ts';

const HOUR_MS = 3_600_000;
/** Distinct (hour, app, limit) counts held at most; past it the oldest pending counts are written early. */
const MAX_PENDING = 10_000;

/**
 * Counts limit refusals in memory and adds them to the stored hourly counts now and then. A
 * refused request never reaches the ledger, and a client hammering past its limit must not cost a
 * database write per refusal: whatever the rate, a flush writes one row per (hour, app, limit).
 * A flush that fails keeps its counts for the next one.
 */
export class RefusalCounter {
  readonly #insights: LedgerInsights;
  readonly #pending = new Map<string, RefusalCount>();
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(insights: LedgerInsights, flushEveryMs = 5_000) {
    this.#insights = insights;
    if (flushEveryMs > 0) {
      this.#timer = setInterval(() => void this.flush().catch(() => {}), flushEveryMs);
      this.#timer.unref();
    }
  }

  count(app: string, limit: string, now: number): void {
    const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const key = `${hour}\u0000${app}\u0000${limit}`;
    const entry = this.#pending.get(key);
    if (entry !== undefined) entry.refusals++;
    else {
      this.#pending.set(key, { hour, app, limit, refusals: 1 });
      if (this.#pending.size >= MAX_PENDING) void this.flush().catch(() => {});
    }
  }

  /** Writes the pending counts; concurrent callers wait for the same write. */
  async flush(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
    this.#flushing = this.#insights.addRefusals(batch).catch((error: unknown) => {
      for (const count of batch) {
        const key = `${count.hour}\u0000${count.app}\u0000${count.limit}`;
        const entry = this.#pending.get(key);
        if (entry !== undefined) entry.refusals += count.refusals;
        else this.#pending.set(key, count);
      }
      throw error;
    });
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.flush();
  }
}
