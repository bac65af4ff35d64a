import type { Config } from '../config/config-types.ts';
import type { Logger } from '../platform/logger.ts';
import type { RpcPeer } from '../platform/rpc-peer.ts';
import {
  CoordinatedInFlightCounter,
  CoordinatedLimitStore,
  CoordinatedResponseCacheStore,
} from '../storage/coordinator/coordinated-counters.ts';
import { CoordinatedProviderHealth, CoordinatedRests } from '../storage/coordinator/coordinated-health.ts';
import type { SharedRests } from '../storage/deployment-rests.ts';
import { type InFlightCounter, InProcessInFlightCounter } from '../storage/in-flight-counter.ts';
import { InProcessLimitStore, type LimitStore } from '../storage/limit-store.ts';
import { configuredCircuits, type ProviderHealth } from '../storage/provider-health.ts';
import type { SharedCountingState } from '../storage/redis/redis-availability.ts';
import type { Redis } from '../storage/redis/redis-client.ts';
import { InProcessResponseCacheStore, type ResponseCacheStore } from '../storage/response-cache-store.ts';
import { InProcessProviderHealth } from './health/circuit-breaker.ts';

export interface SharedState {
  limits: LimitStore;
  health: ProviderHealth;
  /** Calls in flight per deployment, for the least-busy strategy. */
  inFlight: InFlightCounter;
  /** The response cache's entries: in this process, bounded in bytes, or in Redis for every instance. */
  responseCache: ResponseCacheStore;
  /** Rests shared with the other workers of this instance; undefined in a single process. */
  rests?: SharedRests;
  /** The Redis connection when REDIS_URL is set (surface B's rate limits may use it too). */
  redis: Redis | undefined;
  /** Whether limits count in Redis or, during an outage, in this process; undefined without REDIS_URL. */
  sharedCounting(): SharedCountingState | undefined;
  close(): Promise<void>;
}

/**
 * Limit counters, provider health and calls in flight: in this process by default; in Redis when
 * REDIS_URL is set, so every instance behind a load balancer enforces one limit, sees one circuit
 * state and counts one set of calls in flight. While Redis is lost, limits and calls in flight
 * count in this process (failover-limit-store.ts, failover-in-flight-counter.ts) and the circuit
 * state keeps its last known value plus this instance's own observations.
 * The Redis modules are loaded only then: a single instance does not pay for ioredis's code.
 */
export async function openSharedState(
  config: Config,
  logger: Logger,
  now: () => number = Date.now,
  worker?: RpcPeer,
): Promise<SharedState> {
  if (worker !== undefined) {
    const rests = new CoordinatedRests(worker);
    // With Redis, the workers share it as instances do; without, the primary holds what they share.
    if (config.redisUrl !== undefined) return { ...(await openSharedState(config, logger, now)), rests };
    return {
      limits: new CoordinatedLimitStore(worker),
      health: new CoordinatedProviderHealth(worker, config.circuit),
      inFlight: new CoordinatedInFlightCounter(worker),
      responseCache: new CoordinatedResponseCacheStore(worker),
      rests,
      redis: undefined,
      sharedCounting: () => undefined,
      close: async () => {},
    };
  }
  if (config.redisUrl === undefined) {
    return {
      limits: new InProcessLimitStore(),
      health: new InProcessProviderHealth(config.circuit),
      inFlight: new InProcessInFlightCounter(),
      responseCache: new InProcessResponseCacheStore(config.responseCache.maxBytes, now),
      redis: undefined,
      sharedCounting: () => undefined,
      close: async () => {},
    };
  }
  const [
    { connectRedis },
    { RedisLimitStore },
    { RedisProviderHealth },
    { RedisAvailability },
    { FailoverLimitStore },
    { RedisInFlightCounter },
    { FailoverInFlightCounter },
    { RedisResponseCacheStore },
  ] = await Promise.all([
    import('../storage/redis/redis-client.ts'),
    import('../storage/redis/redis-limit-store.ts'),
    import('../storage/redis/redis-provider-health.ts'),
    import('../storage/redis/redis-availability.ts'),
    import('../storage/redis/failover-limit-store.ts'),
    import('../storage/redis/redis-in-flight-counter.ts'),
    import('../storage/redis/failover-in-flight-counter.ts'),
    import('../storage/redis/redis-response-cache-store.ts'),
  ]);
  const redis = await connectRedis(config.redisUrl);
  const availability = new RedisAvailability(
    redis,
    logger.child({ component: 'redis' }),
    `${config.redisKeyPrefix}availability-probe`,
  );
  const circuits = configuredCircuits(config.providers).map((circuit) => circuit.key);
  const health = new RedisProviderHealth(redis, config.circuit, config.redisKeyPrefix, circuits);
  await health.refresh();
  return {
    limits: new FailoverLimitStore(new RedisLimitStore(redis, config.redisKeyPrefix), availability),
    health,
    inFlight: new FailoverInFlightCounter(
      new RedisInFlightCounter(redis, config.redisKeyPrefix),
      availability,
    ),
    responseCache: new RedisResponseCacheStore(redis, config.redisKeyPrefix),
    redis,
    sharedCounting: () => availability.state(),
    close: async () => {
      availability.close();
      await health.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
