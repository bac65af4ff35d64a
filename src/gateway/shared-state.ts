import type { Config } from '../config/config-types.ts';
import { InProcessLimitStore, type LimitStore } from '../storage/limit-store.ts';
import type { Redis } from '../storage/redis/redis-client.ts';
import { InProcessProviderHealth, type ProviderHealth } from './health/circuit-breaker.ts';

export interface SharedState {
  limits: LimitStore;
  health: ProviderHealth;
  /** The Redis connection when REDIS_URL is set (surface B's rate limits may use it too). */
  redis: Redis | undefined;
  close(): Promise<void>;
}

/**
 * Limit counters and provider health: in this process by default; in Redis when REDIS_URL is
 * set, so every instance behind a load balancer enforces one limit and sees one circuit state.
 * The Redis modules are loaded only then: a single instance does not pay for ioredis's code.
 */
export async function openSharedState(config: Config): Promise<SharedState> {
  if (config.redisUrl === undefined) {
    return {
      limits: new InProcessLimitStore(),
      health: new InProcessProviderHealth(config.circuit),
      redis: undefined,
      close: async () => {},
    };
  }
  const [{ connectRedis }, { RedisLimitStore }, { RedisProviderHealth }] = await Promise.all([
    import('../storage/redis/redis-client.ts'),
    import('../storage/redis/redis-limit-store.ts'),
    import('../storage/redis/redis-provider-health.ts'),
  ]);
  const redis = await connectRedis(config.redisUrl);
  const health = new RedisProviderHealth(redis, config.circuit, config.redisKeyPrefix);
  await health.refresh();
  return {
    limits: new RedisLimitStore(redis, config.redisKeyPrefix),
    health,
    redis,
    close: async () => {
      await health.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
