import type { CircuitSettings } from '../../config/config-types.ts';
import type { RpcPeer } from '../../platform/rpc-peer.ts';
import type { SharedRests } from '../deployment-rests.ts';
import type { CircuitKey, CircuitState, ProviderHealth } from '../provider-health.ts';

interface Mirror {
  openUntil: number;
  failures: number;
  probing: boolean;
}

/** A circuit's shared state as the primary broadcasts it. */
export interface CircuitBroadcast {
  key: CircuitKey;
  openUntil: number;
  failures: number;
}

/**
 * The circuit breaker of a worker (CONTRACT 6.8): the hot path reads a local mirror, as the Redis
 * one does; each failure or clearing success goes to the primary, which counts for every worker
 * and broadcasts the circuit's state the moment it changes (microseconds, well inside the
 * contract's 100 ms). Each worker lets at most one half-open probe through.
 */
export class CoordinatedProviderHealth implements ProviderHealth {
  readonly #link: RpcPeer;
  readonly #settings: CircuitSettings;
  readonly #mirror = new Map<CircuitKey, Mirror>();

  constructor(link: RpcPeer, settings: CircuitSettings) {
    this.#link = link;
    this.#settings = settings;
    link.handle('health.state', (state: CircuitBroadcast) => {
      const mirror = this.#mirrorOf(state.key);
      mirror.openUntil = state.openUntil;
      mirror.failures = state.failures;
    });
  }

  tryAcquire(key: CircuitKey, now: number): boolean {
    const mirror = this.#mirrorOf(key);
    if (mirror.openUntil === 0) return true;
    if (now < mirror.openUntil || mirror.probing) return false;
    mirror.probing = true;
    return true;
  }

  recordSuccess(key: CircuitKey): void {
    const mirror = this.#mirrorOf(key);
    const wasProbing = mirror.probing;
    mirror.probing = false;
    // Successes are the common case: only the primary hears of one that clears something.
    if (mirror.failures === 0 && mirror.openUntil === 0 && !wasProbing) return;
    mirror.failures = 0;
    mirror.openUntil = 0;
    this.#link.notify('health.success', [key]);
  }

  recordFailure(key: CircuitKey, now: number): void {
    const mirror = this.#mirrorOf(key);
    const probe = mirror.probing;
    mirror.probing = false;
    mirror.failures++;
    if (probe || mirror.failures >= this.#settings.failureThreshold) {
      mirror.openUntil = now + this.#settings.cooldownMs;
    }
    this.#link.notify('health.failure', [key, now, probe]);
  }

  release(key: CircuitKey): void {
    this.#mirrorOf(key).probing = false;
  }

  state(key: CircuitKey, now: number): CircuitState {
    const { openUntil } = this.#mirrorOf(key);
    if (openUntil === 0) return 'closed';
    return now < openUntil ? 'open' : 'half_open';
  }

  #mirrorOf(key: CircuitKey): Mirror {
    let mirror = this.#mirror.get(key);
    if (mirror === undefined) {
      mirror = { openUntil: 0, failures: 0, probing: false };
      this.#mirror.set(key, mirror);
    }
    return mirror;
  }
}

/** Rests announced to the primary, which passes them to every other worker at once. */
export class CoordinatedRests implements SharedRests {
  readonly #link: RpcPeer;

  constructor(link: RpcPeer) {
    this.#link = link;
  }

  announce(key: string, restMs: number): void {
    this.#link.notify('rest', [key, restMs]);
  }

  listen(apply: (key: string, restMs: number) => void): void {
    this.#link.handle('rest', apply);
  }
}
