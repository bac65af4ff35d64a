import { Redis } from 'ioredis';

/**
 * The longest a request waits on one Redis command. The contract allows 250 ms of waiting on
 * Redis per request; after the first command that fails, the rest of the request counts in this
 * process (failover-limit-store.ts), so one command's wait is the request's wait.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 200;
/** How long the start-up connection (TCP, handshake, ready check) may take before start-up fails. */
const START_TIMEOUT_MS = 5_000;

/** A Redis connection for shared state: commands fail within REDIS_COMMAND_TIMEOUT_MS instead of queueing. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // While disconnected, a command fails at once rather than waiting for the reconnection.
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails at once and is never sent again: the
    // caller has already counted it elsewhere, and a late replay would count it twice.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // A partition sends no reset: a connection that stops answering is dropped and redialled.
    socketTimeout: 1_000,
    connectTimeout: 2_000,
    // Redial quickly, so shared counting resumes within seconds of Redis coming back.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  let lastError: Error | undefined;
  // Reconnection is ioredis's job; an error event without a listener would crash the process.
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${START_TIMEOUT_MS} ms`)),
          START_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    redis.disconnect();
    // ioredis says only "Connection is closed."; the error event said why.
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new Error(
      `cannot reach Redis at REDIS_URL ${describeRedisAddress(url)}: ${withoutSecret(reason, url)}`,
    );
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

/** `host:port` of a Redis URL, for messages: never its user name or password. */
export function describeRedisAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port === '' ? '6379' : parsed.port}`;
}

/** A server's message could quote what the client sent: the URL's password never goes further. */
function withoutSecret(text: string, url: string): string {
  const password = decodeURIComponent(new URL(url).password);
  return password === '' ? text : text.split(password).join('***');
}

export type { Redis };
