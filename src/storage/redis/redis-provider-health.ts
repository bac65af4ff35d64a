import type { CircuitSettings } from '../../config/config-types.ts';
import type { CircuitKey, CircuitState, ProviderHealth } from '../provider-health.ts';
import type { Redis } from './redis-client.ts';

// Count a failure; open the circuit (open_until = ARGV[1] + cooldown) at the threshold or when a
// half-open probe failed. Returns the open_until now in force (0 when closed).
const RECORD_FAILURE = `
local failures = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if failures >= tonumber(ARGV[3]) or ARGV[4] == '1' then
  local untilMs = tonumber(ARGV[1]) + tonumber(ARGV[2])
  redis.call('SET', KEYS[2], untilMs, 'PX', tonumber(ARGV[2]) * 2)
  redis.call('DEL', KEYS[1])
  return untilMs
end
return tonumber(redis.call('GET', KEYS[2]) or '0')`;

interface Mirror {
  openUntil: number;
  failures: number;
  probing: boolean;
}

/**
 * The circuit breaker shared through Redis: every instance sees a circuit (a slot's, or a
 * deployment's) opened by any of them. The hot path reads a local mirror (no Redis round trip
 * per call); the mirror of every configured circuit is refreshed every `pollMs` and after each
 * write. Each instance lets at most one half-open probe through.
 */
export class RedisProviderHealth implements ProviderHealth {
  readonly #redis: Redis;
  readonly #settings: CircuitSettings;
  readonly #prefix: string;
  readonly #mirror = new Map<CircuitKey, Mirror>();
  readonly #circuits: readonly CircuitKey[];
  readonly #timer: NodeJS.Timeout;

  /** `circuits`: every circuit the configuration has (configuredCircuits), the ones the poll reads. */
  constructor(
    redis: Redis,
    settings: CircuitSettings,
    keyPrefix: string,
    circuits: readonly CircuitKey[],
    pollMs = 500,
  ) {
    this.#redis = redis;
    this.#settings = settings;
    this.#prefix = `${keyPrefix}circuit:`;
    this.#circuits = circuits;
    for (const key of circuits) this.#mirror.set(key, { openUntil: 0, failures: 0, probing: false });
    this.#timer = setInterval(() => void this.refresh(), pollMs);
    this.#timer.unref();
  }

  /** Reads every circuit's shared state into the mirror. */
  async refresh(): Promise<void> {
    try {
      const keys = this.#circuits.flatMap((circuit) => [
        this.#key(circuit, 'open_until'),
        this.#key(circuit, 'failures'),
      ]);
      const values = await this.#redis.mget(...keys);
      this.#circuits.forEach((circuit, i) => {
        const mirror = this.#mirrorOf(circuit);
        mirror.openUntil = Number(values[i * 2] ?? 0);
        mirror.failures = Number(values[i * 2 + 1] ?? 0);
      });
    } catch {
      // Redis unreachable: keep the last known state; calls still flow.
    }
  }

  tryAcquire(circuit: CircuitKey, now: number): boolean {
    const mirror = this.#mirrorOf(circuit);
    if (mirror.openUntil === 0) return true;
    if (now < mirror.openUntil || mirror.probing) return false;
    mirror.probing = true;
    return true;
  }

  recordSuccess(circuit: CircuitKey): void {
    const mirror = this.#mirrorOf(circuit);
    const wasProbing = mirror.probing;
    mirror.probing = false;
    // Successes are the common case: only touch Redis when there is something to clear.
    if (mirror.failures === 0 && mirror.openUntil === 0 && !wasProbing) return;
    mirror.failures = 0;
    mirror.openUntil = 0;
    void this.#redis.del(this.#key(circuit, 'failures'), this.#key(circuit, 'open_until')).catch(() => {});
  }

  recordFailure(circuit: CircuitKey, now: number): void {
    const mirror = this.#mirrorOf(circuit);
    const probe = mirror.probing;
    mirror.probing = false;
    mirror.failures++;
    const { cooldownMs, failureThreshold } = this.#settings;
    if (probe || mirror.failures >= failureThreshold) mirror.openUntil = now + cooldownMs;
    void (
      this.#redis.eval(
        RECORD_FAILURE,
        2,
        this.#key(circuit, 'failures'),
        this.#key(circuit, 'open_until'),
        now,
        cooldownMs,
        failureThreshold,
        probe ? '1' : '0',
      ) as Promise<number>
    )
      .then((openUntil) => {
        if (Number(openUntil) > mirror.openUntil) mirror.openUntil = Number(openUntil);
      })
      .catch(() => {});
  }

  release(circuit: CircuitKey): void {
    this.#mirrorOf(circuit).probing = false;
  }

  state(circuit: CircuitKey, now: number): CircuitState {
    const { openUntil } = this.#mirrorOf(circuit);
    if (openUntil === 0) return 'closed';
    return now < openUntil ? 'open' : 'half_open';
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
  }

  #key(circuit: CircuitKey, name: string): string {
    return `${this.#prefix}${circuit}:${name}`;
  }

  /** A circuit outside the configured ones gets a mirror on first use, which the poll does not read. */
  #mirrorOf(circuit: CircuitKey): Mirror {
    let mirror = this.#mirror.get(circuit);
    if (mirror === undefined) {
      mirror = { openUntil: 0, failures: 0, probing: false };
      this.#mirror.set(circuit, mirror);
    }
    return mirror;
  }
}
