import { randomUUID } from 'node:crypto';
import type { LimitStore, ReserveResult } from '../limit-store.ts';
import type { Redis } from './redis-client.ts';

// Reserve: add ARGV[1] unless the total would pass ARGV[2]; the key expires at ARGV[3] (epoch ms).
// One script, so concurrent instances can never both squeeze past the limit.
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if used + amount > tonumber(ARGV[2]) then
  return {0, used, redis.call('PEXPIRETIME', KEYS[1])}
end
used = redis.call('INCRBY', KEYS[1], amount)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return {1, used, tonumber(ARGV[3])}`;

// Adjust: add ARGV[1] (possibly negative), never below zero, keeping the window's expiry.
const ADJUST = `
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used < 0 then redis.call('SET', KEYS[1], 0, 'KEEPTTL') end
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return used`;

// Leases: a sorted set of lease ids scored by expiry; expired ones are dropped before counting.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1`;

/** An acquisition that failed in flight: Redis may have taken the lease, so its holder owes a release. */
export class LeaseInDoubtError extends Error {
  readonly leaseId: string;

  constructor(leaseId: string, cause: unknown) {
    super(`lease acquisition failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.leaseId = leaseId;
  }
}

/** Limit counters in Redis, shared by every gateway instance; each operation is one atomic script. */
export class RedisLimitStore implements LimitStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** `keyPrefix` namespaces the keys (REDIS_KEY_PREFIX), so deployments can share one Redis. */
  constructor(redis: Redis, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}limit:`;
  }

  async reserve(key: string, amount: number, limit: number, resetAt: number): Promise<ReserveResult> {
    const [ok, used, expiresAt] = (await this.#redis.eval(
      RESERVE,
      1,
      this.#prefix + key,
      amount,
      limit,
      resetAt,
    )) as [number, number, number];
    return { ok: ok === 1, used: Number(used), resetAt: Number(expiresAt) > 0 ? Number(expiresAt) : resetAt };
  }

  async adjust(key: string, delta: number, resetAt: number): Promise<void> {
    await this.#redis.eval(ADJUST, 1, this.#prefix + key, delta, resetAt);
  }

  async acquireLease(
    key: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<string | undefined> {
    const id = randomUUID();
    let ok: number;
    try {
      ok = (await this.#redis.eval(ACQUIRE, 1, this.#prefix + key, now, limit, expiresAt, id)) as number;
    } catch (error) {
      throw new LeaseInDoubtError(id, error);
    }
    return ok === 1 ? id : undefined;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    await this.#redis.zrem(this.#prefix + key, leaseId);
  }
}
