import { InProcessLimitStore, type LimitStore, type ReserveResult } from '../limit-store.ts';
import type { RedisAvailability } from './redis-availability.ts';
import { LeaseInDoubtError } from './redis-limit-store.ts';

// Leases taken in this process carry this prefix, so they are released where they were taken
// even when Redis is back by then.
const LOCAL_LEASE = 'local:';
// Releases owed to Redis are kept up to this many; past it the oldest are left to expire.
const MAX_OWED_RELEASES = 10_000;
// Past this many owed counters (per-address signup windows in a long outage), ended windows are
// dropped; the next sweep waits until the map has doubled, so a sweep costs O(1) per call on average.
const SWEEP_OWED_COUNTS_AT = 10_000;

/**
 * The shared (Redis) limit store while Redis answers; the in-process one, with the same
 * semantics, from the first failed command until Redis answers again (RedisAvailability). Every
 * call answers: a request never fails, nor waits past one command timeout, because Redis is gone.
 *
 * When Redis is back, what the outage left is handed to it: the counts this instance made
 * locally (reservations and their corrections) are added to the shared counters of live windows,
 * so a day's spend during an outage still counts against the daily budget, and concurrency leases
 * taken in Redis whose release failed are released. A command that timed out may still have run
 * in Redis, so what it counted may count twice (once there, once here); it is never resent.
 */
export class FailoverLimitStore implements LimitStore {
  readonly #shared: LimitStore;
  readonly #local: LimitStore;
  readonly #availability: RedisAvailability;
  /** Counts made locally during the outage, per key: added to Redis when it is back. */
  #owedCounts = new Map<string, { delta: number; resetAt: number }>();
  /** The size at which the owed counts are next swept of ended windows. */
  #sweepOwedAt = SWEEP_OWED_COUNTS_AT;
  #owedReleases: { key: string; leaseId: string }[] = [];

  constructor(
    shared: LimitStore,
    availability: RedisAvailability,
    local: LimitStore = new InProcessLimitStore(),
  ) {
    this.#shared = shared;
    this.#local = local;
    this.#availability = availability;
    availability.onResume(() => this.#settleOutage());
  }

  async reserve(key: string, amount: number, limit: number, resetAt: number): Promise<ReserveResult> {
    const shared = await this.#tryShared(() => this.#shared.reserve(key, amount, limit, resetAt));
    if (shared !== undefined) return shared.value;
    const result = await this.#local.reserve(key, amount, limit, resetAt);
    if (result.ok) this.#owe(key, amount, resetAt);
    return result;
  }

  async adjust(key: string, delta: number, resetAt: number): Promise<void> {
    const shared = await this.#tryShared(() => this.#shared.adjust(key, delta, resetAt));
    if (shared !== undefined) return;
    await this.#local.adjust(key, delta, resetAt);
    this.#owe(key, delta, resetAt);
  }

  async acquireLease(
    key: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<string | undefined> {
    const shared = await this.#tryShared(
      () => this.#shared.acquireLease(key, limit, now, expiresAt),
      (error) => {
        if (error instanceof LeaseInDoubtError) this.#oweRelease(key, error.leaseId);
      },
    );
    if (shared !== undefined) return shared.value;
    const id = await this.#local.acquireLease(key, limit, now, expiresAt);
    return id === undefined ? undefined : LOCAL_LEASE + id;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    if (leaseId.startsWith(LOCAL_LEASE))
      return this.#local.releaseLease(key, leaseId.slice(LOCAL_LEASE.length));
    const shared = await this.#tryShared(() => this.#shared.releaseLease(key, leaseId));
    if (shared !== undefined) return;
    this.#oweRelease(key, leaseId);
  }

  /** The shared store's answer, or undefined when Redis is out (known, or found by this call). */
  async #tryShared<T>(
    call: () => Promise<T>,
    onError: (error: unknown) => void = () => {},
  ): Promise<{ value: T } | undefined> {
    if (!this.#availability.usable) return undefined;
    try {
      return { value: await call() };
    } catch (error) {
      onError(error);
      this.#availability.markLost(error);
      return undefined;
    }
  }

  #owe(key: string, delta: number, resetAt: number): void {
    if (this.#owedCounts.size >= this.#sweepOwedAt) {
      // Counters of live windows survive a sweep: with many of them (a caller sending from many
      // addresses), sweeping at the same size again would rescan the whole map on every call.
      const now = Date.now();
      for (const [k, owed] of this.#owedCounts) if (owed.resetAt <= now) this.#owedCounts.delete(k);
      this.#sweepOwedAt = Math.max(SWEEP_OWED_COUNTS_AT, 2 * this.#owedCounts.size);
    }
    const owed = this.#owedCounts.get(key);
    if (owed === undefined) this.#owedCounts.set(key, { delta, resetAt });
    else owed.delta += delta;
  }

  /** A lease Redis holds (or may hold) that this instance could not release. */
  #oweRelease(key: string, leaseId: string): void {
    // The lease also expires by itself (app-limiter.ts): releasing it when Redis is back only frees it sooner.
    this.#owedReleases.push({ key, leaseId });
    if (this.#owedReleases.length > MAX_OWED_RELEASES) this.#owedReleases.shift();
  }

  /**
   * Hands Redis what the outage left: local counts and lease releases. If Redis fails again
   * midway, what was not sent stays owed; the count in flight is dropped, since it may have run.
   */
  async #settleOutage(): Promise<void> {
    const now = Date.now();
    const pending = [...this.#owedCounts].filter(([, owed]) => owed.resetAt > now && owed.delta !== 0);
    const releases = this.#owedReleases;
    this.#owedCounts = new Map();
    this.#owedReleases = [];
    try {
      for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
        await this.#shared.adjust(next[0], next[1].delta, next[1].resetAt);
      }
      while (releases.length > 0) {
        const { key, leaseId } = releases[0] as { key: string; leaseId: string };
        // Releasing twice is harmless: this one stays owed until Redis confirms it.
        await this.#shared.releaseLease(key, leaseId);
        releases.shift();
      }
    } catch (error) {
      for (const [key, owed] of pending) this.#owe(key, owed.delta, owed.resetAt);
      this.#owedReleases.unshift(...releases);
      throw error;
    }
  }
}
