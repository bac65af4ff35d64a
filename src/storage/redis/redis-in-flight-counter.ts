import { randomUUID } from 'node:crypto';
import type { InFlightCounter, LeastBusyEntry } from '../in-flight-counter.ts';
import type { Redis } from './redis-client.ts';

// Each key is a sorted set of lease ids scored by their expiry (epoch ms): expired ones are
// dropped before counting, so a lease whose holder died counts until it expires and no longer.
// The key itself lives as long as its latest lease.
const EXTEND_KEY = `
local function extend(key, expiresAt)
  local current = redis.call('PEXPIRETIME', key)
  if current < tonumber(expiresAt) then redis.call('PEXPIREAT', key, expiresAt) end
end`;

// KEYS: one sorted set per deployment, in the caller's order; ARGV: now, expiresAt, lease id.
// Counts every key and enters the first of the least busy, in one script: instances entering at
// the same moment see each other's leases.
const ENTER_LEAST_BUSY = `${EXTEND_KEY}
local best, fewest = 1, -1
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  local count = redis.call('ZCARD', key)
  counts[i] = count
  if fewest < 0 or count < fewest then best, fewest = i, count end
end
redis.call('ZADD', KEYS[best], ARGV[2], ARGV[3])
extend(KEYS[best], ARGV[2])
return {best, counts}`;

const ENTER = `${EXTEND_KEY}
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
extend(KEYS[1], ARGV[2])
return 1`;

/** An entry that failed in flight: Redis may hold its lease, so the holder owes a leave. */
export class EntryInDoubtError extends Error {
  /** The keys it may have entered. */
  readonly keys: readonly string[];
  readonly lease: string;

  constructor(keys: readonly string[], lease: string, cause: unknown) {
    super(`in-flight entry failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.keys = keys;
    this.lease = lease;
  }
}

/** In-flight counts in Redis, shared by every gateway instance; each operation is one command. */
export class RedisInFlightCounter implements InFlightCounter {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** `keyPrefix` namespaces the keys (REDIS_KEY_PREFIX). */
  constructor(redis: Redis, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}inflight:`;
  }

  async enterLeastBusy(keys: readonly string[], now: number, expiresAt: number): Promise<LeastBusyEntry> {
    const lease = randomUUID();
    let answer: [number, number[]];
    try {
      answer = (await this.#redis.eval(
        ENTER_LEAST_BUSY,
        keys.length,
        ...keys.map((key) => this.#prefix + key),
        now,
        expiresAt,
        lease,
      )) as [number, number[]];
    } catch (error) {
      // Which key it may have entered is unknown: leaving every one of them is harmless.
      throw new EntryInDoubtError(keys, lease, error);
    }
    return { index: Number(answer[0]) - 1, lease, counts: answer[1].map(Number) };
  }

  async enter(key: string, now: number, expiresAt: number): Promise<string> {
    const lease = randomUUID();
    try {
      await this.#redis.eval(ENTER, 1, this.#prefix + key, now, expiresAt, lease);
    } catch (error) {
      throw new EntryInDoubtError([key], lease, error);
    }
    return lease;
  }

  async leave(key: string, lease: string): Promise<void> {
    await this.#redis.zrem(this.#prefix + key, lease);
  }
}
