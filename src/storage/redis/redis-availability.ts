import type { Logger } from '../../platform/logger.ts';
import type { Redis } from './redis-client.ts';

/**
 * Whether limits count in Redis (`shared`) or in this process (`local`): what an operator needs to
 * see during an outage (tests read it; a metrics endpoint is not built yet).
 */
export interface SharedCountingState {
  mode: 'shared' | 'local';
  /** Epoch ms of the last change of mode (of start-up while it never changed). */
  since: number;
  /** Outages seen since start-up. */
  outages: number;
}

/** The probe's key lives this long: it only has to be written, never read. */
const PROBE_TTL_MS = 1_000;

/**
 * Whether Redis is usable for shared counting, and the one owner of an outage's lifecycle: the
 * first failed command starts it (one warning), a probe every `probeMs` ends it once a write
 * succeeds (one info), then the resume hooks run. ioredis redials by itself; this only notices.
 *
 * The probe writes, because an outage is not always a lost connection: a Redis that answers with
 * an error reply (OOM under `maxmemory`, READONLY after a failover left us on a replica, LOADING,
 * MISCONF) still answers PING. A PING probe would end such an outage at once, the next counting
 * command would start another, and the log would get a warning every `probeMs`.
 */
export class RedisAvailability {
  readonly #redis: Redis;
  readonly #logger: Logger;
  readonly #probeMs: number;
  readonly #resumeHooks: (() => Promise<void>)[] = [];
  #state: SharedCountingState;
  #probe: NodeJS.Timeout | undefined;
  #probing = false;
  #closed = false;

  readonly #probeKey: string;

  /** `probeKey` is written (and expires at once) to tell whether Redis takes writes again. */
  constructor(redis: Redis, logger: Logger, probeKey: string, probeMs = 250) {
    this.#redis = redis;
    this.#logger = logger;
    this.#probeKey = probeKey;
    this.#probeMs = probeMs;
    this.#state = { mode: 'shared', since: Date.now(), outages: 0 };
    // A dropped connection is an outage even before a request notices: the state shows it at once.
    redis.on('close', () => this.markLost(new Error('connection closed')));
  }

  get usable(): boolean {
    return this.#state.mode === 'shared';
  }

  state(): SharedCountingState {
    return { ...this.#state };
  }

  /** Runs `hook` each time shared counting resumes (requests may already count in Redis meanwhile). */
  onResume(hook: () => Promise<void>): void {
    this.#resumeHooks.push(hook);
  }

  /** A Redis command failed: count in this process until Redis answers again. */
  markLost(error: unknown): void {
    if (this.#state.mode === 'local' || this.#closed) return;
    this.#state = { mode: 'local', since: Date.now(), outages: this.#state.outages + 1 };
    this.#logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'Redis unreachable or refusing writes: limits and budgets count in this instance alone until it is back',
    );
    this.#probe = setInterval(() => void this.#tryResume(), this.#probeMs);
    this.#probe.unref();
  }

  /** Before the connection is closed on purpose, which is no outage. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#probe);
  }

  async #tryResume(): Promise<void> {
    // Not connected: ioredis is redialling; a PING now would only fail.
    if (this.#probing || this.#redis.status !== 'ready') return;
    this.#probing = true;
    try {
      await this.#redis.set(this.#probeKey, '1', 'PX', PROBE_TTL_MS);
    } catch {
      return;
    } finally {
      this.#probing = false;
    }
    if (this.#state.mode === 'shared') return;
    clearInterval(this.#probe);
    const outageMs = Date.now() - this.#state.since;
    this.#state = { ...this.#state, mode: 'shared', since: Date.now() };
    this.#logger.info({ outageMs }, 'Redis is back: limits and budgets count across instances again');
    for (const hook of this.#resumeHooks) await hook().catch((error) => this.markLost(error));
  }
}
