import type { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.ts';
import type { GovernanceCache } from './governance-cache.ts';

/** What the admin API tells other instances after a change: the version the store is now at. */
export type AnnounceChange = (version: number) => void;

export interface ChangeSignal {
  announce: AnnounceChange;
  close(): Promise<void>;
}

/**
 * With Redis, a change made through any instance's admin API reaches every other instance in
 * about a Redis round trip and a read, instead of up to a poll interval later: the instance that
 * made it publishes, and each instance's cache reads the store's version on the message. The
 * poll stays as it was, for changes nobody announces (the CLI, a message lost). Without Redis,
 * or when the subscription cannot be made, there is only the poll.
 */
export async function openChangeSignal(
  redis: Redis | undefined,
  keyPrefix: string,
  cache: GovernanceCache,
  logger: Logger,
): Promise<ChangeSignal | undefined> {
  if (redis === undefined) return undefined;
  const { RedisChangeSignal } = await import('../../storage/redis/redis-change-signal.ts');
  try {
    const signal = await RedisChangeSignal.open(redis, `${keyPrefix}governance-changes`, () => cache.nudge());
    return { announce: (version) => signal.announce(version), close: () => signal.close() };
  } catch (error) {
    logger.warn(
      { err: error },
      'governance changes not signalled through Redis: other instances see them at their next poll',
    );
    return undefined;
  }
}
