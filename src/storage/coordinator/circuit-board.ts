import type { CircuitSettings } from '../../config/config-types.ts';
import type { CircuitKey } from '../provider-health.ts';
import type { CircuitBroadcast } from './coordinated-health.ts';

/**
 * The circuits of every worker, counted in the primary as the Redis script counts them for every
 * instance: failures in a row (forgotten a cooldown after the last one) open a circuit at the
 * threshold, or at once when a half-open probe failed; a success clears it.
 */
export class CircuitBoard {
  readonly #settings: CircuitSettings;
  readonly #circuits = new Map<CircuitKey, { failures: number; lastFailureAt: number; openUntil: number }>();

  constructor(settings: CircuitSettings) {
    this.#settings = settings;
  }

  failed(key: CircuitKey, now: number, probe: boolean): CircuitBroadcast {
    const circuit = this.#circuits.get(key) ?? { failures: 0, lastFailureAt: 0, openUntil: 0 };
    this.#circuits.set(key, circuit);
    const { cooldownMs, failureThreshold } = this.#settings;
    if (now - circuit.lastFailureAt > cooldownMs) circuit.failures = 0;
    circuit.failures++;
    circuit.lastFailureAt = now;
    if (circuit.failures >= failureThreshold || probe) {
      circuit.openUntil = Math.max(circuit.openUntil, now + cooldownMs);
      circuit.failures = 0;
    }
    return { key, openUntil: circuit.openUntil, failures: circuit.failures };
  }

  succeeded(key: CircuitKey): CircuitBroadcast {
    this.#circuits.delete(key);
    return { key, openUntil: 0, failures: 0 };
  }

  /** Every circuit that is not plainly closed, for a worker that joins. */
  states(): CircuitBroadcast[] {
    return [...this.#circuits].map(([key, c]) => ({ key, openUntil: c.openUntil, failures: c.failures }));
  }
}
