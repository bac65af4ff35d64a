/**
 * Counters behind the per-app limits. The in-process store is the default; with REDIS_URL the
 * same operations run atomically in Redis, so several gateway instances share one count.
 */
export interface ReserveResult {
  ok: boolean;
  /** The counter's value after the reservation (or the value that refused it). */
  used: number;
  /** Epoch ms when the counter's window ends. */
  resetAt: number;
}

export interface LimitStore {
  /**
   * Adds `amount` to `key` only if the total stays within `limit`; the key expires at `resetAt`.
   * Atomic: concurrent reservations never both squeeze past the limit.
   */
  reserve(key: string, amount: number, limit: number, resetAt: number): Promise<ReserveResult>;
  /** Adds `delta` (possibly negative) to `key`, unconditionally: settles a reservation against actual use. */
  adjust(key: string, delta: number, resetAt: number): Promise<void>;
  /**
   * Takes one of `limit` concurrent leases on `key`, expiring at `expiresAt` so a crashed holder
   * cannot keep it forever. Resolves the lease id, or undefined when all leases are taken.
   */
  acquireLease(key: string, limit: number, now: number, expiresAt: number): Promise<string | undefined>;
  releaseLease(key: string, leaseId: string): Promise<void>;
  close?(): Promise<void>;
}

export class InProcessLimitStore implements LimitStore {
  readonly #counters = new Map<string, { value: number; resetAt: number }>();
  readonly #leases = new Map<string, Map<string, number>>();
  #sweeps = 0;
  #nextLease = 0;

  async acquireLease(
    key: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<string | undefined> {
    let leases = this.#leases.get(key);
    if (leases === undefined) {
      leases = new Map();
      this.#leases.set(key, leases);
    }
    for (const [id, until] of leases) if (until <= now) leases.delete(id);
    if (leases.size >= limit) return undefined;
    const id = String(++this.#nextLease);
    leases.set(id, expiresAt);
    return id;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    this.#leases.get(key)?.delete(leaseId);
  }

  async reserve(key: string, amount: number, limit: number, resetAt: number): Promise<ReserveResult> {
    const counter = this.#live(key, resetAt);
    if (counter.value + amount > limit) return { ok: false, used: counter.value, resetAt: counter.resetAt };
    counter.value += amount;
    return { ok: true, used: counter.value, resetAt: counter.resetAt };
  }

  async adjust(key: string, delta: number, resetAt: number): Promise<void> {
    const counter = this.#live(key, resetAt);
    counter.value = Math.max(0, counter.value + delta);
  }

  #live(key: string, resetAt: number): { value: number; resetAt: number } {
    const now = Date.now();
    // Expired windows are swept now and then, so the map stays as small as the live keys.
    if (++this.#sweeps % 1000 === 0) {
      for (const [k, c] of this.#counters) if (c.resetAt <= now) this.#counters.delete(k);
    }
    let counter = this.#counters.get(key);
    if (counter === undefined || counter.resetAt <= now) {
      counter = { value: 0, resetAt };
      this.#counters.set(key, counter);
    }
    return counter;
  }
}
