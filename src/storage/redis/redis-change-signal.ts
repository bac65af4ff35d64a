import type { Redis } from 'ioredis';

/**
 * A nudge between instances sharing Redis: an instance that changed the governance store
 * publishes on one channel, and every instance (itself included) reads the store's version at
 * once instead of at its next poll. Only a nudge: the message carries nothing but the version,
 * the store stays the truth, and a message lost (Redis away, a change made by the CLI, which
 * publishes nothing) costs only the wait for the next poll.
 */
export class RedisChangeSignal {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;

  private constructor(publisher: Redis, subscriber: Redis, channel: string) {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#channel = channel;
  }

  /**
   * Subscribes on a connection of its own (a subscribed connection takes no other command);
   * ioredis subscribes again after a reconnection. `onSignal` runs for every message.
   */
  static async open(redis: Redis, channel: string, onSignal: () => void): Promise<RedisChangeSignal> {
    const subscriber = redis.duplicate();
    // Without a listener an error event would end the process; reconnection is ioredis's job.
    subscriber.on('error', () => {});
    subscriber.on('message', (from: string) => {
      if (from === channel) onSignal();
    });
    try {
      await subscriber.connect();
      await subscriber.subscribe(channel);
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    return new RedisChangeSignal(redis, subscriber, channel);
  }

  /** Tells every instance that the store moved to `version`; a failure is left to the poll. */
  announce(version: number): void {
    this.#publisher.publish(this.#channel, String(version)).catch(() => {});
  }

  /** Drops the subscription's connection (nothing is in flight on it worth a graceful QUIT). */
  async close(): Promise<void> {
    this.#subscriber.disconnect();
  }
}
