import { Redis } from 'ioredis';

/** A Redis connection for shared state; fails fast instead of queueing commands forever. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
    enableOfflineQueue: true,
  });
  // Reconnection is ioredis's job; an error event without a listener would crash the process.
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

export type { Redis };
