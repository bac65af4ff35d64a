import type { ResponseCacheStore } from '../response-cache-store.ts';
import type { Redis } from './redis-client.ts';

/**
 * The longest a request waits on the cache's Redis: past it, a read is a miss (CONTRACT 5.5 allows
 * 250 ms). The connection's own command timeout is about the same; this one holds whatever the
 * connection does.
 */
export const CACHE_DEADLINE_MS = 200;
/** After a command that failed, Redis is left alone this long: an outage costs one wait, not one per request. */
const RESTING_MS = 1_000;

/**
 * Response-cache entries in Redis, shared by every instance: `SET key value PX ttl` under the
 * configured key prefix, `GET` to read. Redis bounds the whole (its `maxmemory` policy); the
 * gateway bounds each entry before it is written. Redis lost (refused, silent, read-only) is a
 * miss and a write not kept, never an error: a failed command rests the store for a second,
 * during which reads miss at once, then it tries again, so hits come back with Redis.
 */
export class RedisResponseCacheStore implements ResponseCacheStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  #restingUntil = 0;

  /** `keyPrefix` namespaces the keys (REDIS_KEY_PREFIX). */
  constructor(redis: Redis, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}cache:`;
  }

  async get(key: string): Promise<string | undefined> {
    if (!this.#usable()) return undefined;
    try {
      return (await this.#within(this.#redis.get(this.#prefix + key))) ?? undefined;
    } catch {
      this.#rest();
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (!this.#usable()) return;
    try {
      await this.#within(this.#redis.set(this.#prefix + key, value, 'PX', ttlMs));
    } catch {
      this.#rest();
    }
  }

  #usable(): boolean {
    return this.#redis.status === 'ready' && performance.now() >= this.#restingUntil;
  }

  #rest(): void {
    this.#restingUntil = performance.now() + RESTING_MS;
  }

  /** The command's answer, or a rejection once the deadline passed (the command's own answer is then ignored). */
  #within<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time')), CACHE_DEADLINE_MS);
    });
    // A command that fails after the deadline must not become an unhandled rejection.
    command.catch(() => {});
    return Promise.race([command, deadline]).finally(() => clearTimeout(timer));
  }
}
