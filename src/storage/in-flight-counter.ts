/**
 * Calls in flight per deployment, for the least-busy strategy (CONTRACT 5.6): counted in this
 * process by default; with REDIS_URL, in Redis, shared by every instance. Each call holds a lease
 * that expires by itself, so what an instance that died mid-call counted goes away.
 */
export interface InFlightCounter {
  /**
   * Enters the least busy of `keys` (the first of the least busy, so the caller orders the ties)
   * and answers which, the lease, and each key's count before entering. Atomic: two instances
   * entering at once see each other's leases.
   */
  enterLeastBusy(keys: readonly string[], now: number, expiresAt: number): Promise<LeastBusyEntry>;
  /** Enters `key` whatever its count (a session's deployment; the next one after a failure). */
  enter(key: string, now: number, expiresAt: number): Promise<string>;
  /** Ends a lease (one that cannot be ended expires by itself). */
  leave(key: string, lease: string): Promise<void>;
}

export interface LeastBusyEntry {
  /** Index in `keys` of the key entered. */
  index: number;
  lease: string;
  /** Each key's count before entering, in the order of `keys`. */
  counts: number[];
}

/** The counts of this process alone: the default, and the fallback while Redis is lost. */
export class InProcessInFlightCounter implements InFlightCounter {
  /** Key to its leases and their expiry (epoch ms). */
  readonly #leases = new Map<string, Map<string, number>>();
  #nextLease = 0;

  async enterLeastBusy(keys: readonly string[], now: number, expiresAt: number): Promise<LeastBusyEntry> {
    const counts = keys.map((key) => this.count(key, now));
    let index = 0;
    for (let i = 1; i < counts.length; i++) if ((counts[i] as number) < (counts[index] as number)) index = i;
    const lease = this.#add(keys[index] as string, expiresAt);
    return { index, lease, counts };
  }

  async enter(key: string, _now: number, expiresAt: number): Promise<string> {
    return this.#add(key, expiresAt);
  }

  async leave(key: string, lease: string): Promise<void> {
    const leases = this.#leases.get(key);
    leases?.delete(lease);
    if (leases?.size === 0) this.#leases.delete(key);
  }

  /** Leases of `key` still live at `now`. */
  count(key: string, now: number): number {
    const leases = this.#leases.get(key);
    if (leases === undefined) return 0;
    for (const [id, until] of leases) if (until <= now) leases.delete(id);
    return leases.size;
  }

  #add(key: string, expiresAt: number): string {
    let leases = this.#leases.get(key);
    if (leases === undefined) {
      leases = new Map();
      this.#leases.set(key, leases);
    }
    const lease = String(++this.#nextLease);
    leases.set(lease, expiresAt);
    return lease;
  }
}
