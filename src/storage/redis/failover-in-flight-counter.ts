import { type InFlightCounter, InProcessInFlightCounter, type LeastBusyEntry } from '../in-flight-counter.ts';
import type { RedisAvailability } from './redis-availability.ts';
import { EntryInDoubtError } from './redis-in-flight-counter.ts';

// Leases taken in this process carry this prefix, so they are ended where they were taken even
// when Redis is back by then.
const LOCAL_LEASE = 'local:';
// Leaves owed to Redis are kept up to this many; past it the oldest are left to expire.
const MAX_OWED_LEAVES = 10_000;

/**
 * The shared (Redis) in-flight counts while Redis answers; this process's own counts from the
 * first failed command until Redis answers again (RedisAvailability, shared with the limits), so
 * no call waits on Redis past one command's timeout and least-busy keeps working on what this
 * instance sees. Leaves that Redis could not take are sent when it is back; they would also
 * expire by themselves.
 */
export class FailoverInFlightCounter implements InFlightCounter {
  readonly #shared: InFlightCounter;
  readonly #local: InProcessInFlightCounter;
  readonly #availability: RedisAvailability;
  #owedLeaves: { key: string; lease: string }[] = [];

  constructor(
    shared: InFlightCounter,
    availability: RedisAvailability,
    local = new InProcessInFlightCounter(),
  ) {
    this.#shared = shared;
    this.#local = local;
    this.#availability = availability;
    availability.onResume(() => this.#settleOutage());
  }

  async enterLeastBusy(keys: readonly string[], now: number, expiresAt: number): Promise<LeastBusyEntry> {
    const shared = await this.#tryShared(() => this.#shared.enterLeastBusy(keys, now, expiresAt));
    if (shared !== undefined) return shared;
    const entry = await this.#local.enterLeastBusy(keys, now, expiresAt);
    return { ...entry, lease: LOCAL_LEASE + entry.lease };
  }

  async enter(key: string, now: number, expiresAt: number): Promise<string> {
    const shared = await this.#tryShared(() => this.#shared.enter(key, now, expiresAt));
    if (shared !== undefined) return shared;
    return LOCAL_LEASE + (await this.#local.enter(key, now, expiresAt));
  }

  /** Never rejects. */
  async leave(key: string, lease: string): Promise<void> {
    if (lease.startsWith(LOCAL_LEASE)) return this.#local.leave(key, lease.slice(LOCAL_LEASE.length));
    if (!this.#availability.usable) return this.#oweLeave(key, lease);
    try {
      await this.#shared.leave(key, lease);
    } catch (error) {
      this.#availability.markLost(error);
      this.#oweLeave(key, lease);
    }
  }

  async #tryShared<T>(call: () => Promise<T>): Promise<T | undefined> {
    if (!this.#availability.usable) return undefined;
    try {
      return await call();
    } catch (error) {
      if (error instanceof EntryInDoubtError) for (const key of error.keys) this.#oweLeave(key, error.lease);
      this.#availability.markLost(error);
      return undefined;
    }
  }

  #oweLeave(key: string, lease: string): void {
    this.#owedLeaves.push({ key, lease });
    if (this.#owedLeaves.length > MAX_OWED_LEAVES) this.#owedLeaves.shift();
  }

  /** Sends the leaves the outage left; if Redis fails again midway, the rest stay owed. */
  async #settleOutage(): Promise<void> {
    const owed = this.#owedLeaves;
    this.#owedLeaves = [];
    try {
      while (owed.length > 0) {
        const { key, lease } = owed[0] as { key: string; lease: string };
        await this.#shared.leave(key, lease);
        owed.shift();
      }
    } catch (error) {
      this.#owedLeaves.unshift(...owed);
      throw error;
    }
  }
}
