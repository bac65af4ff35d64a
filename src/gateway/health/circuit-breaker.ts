import type { CircuitSettings } from '../../config/config-types.ts';
import type { CircuitKey, CircuitState, ProviderHealth } from '../../storage/provider-health.ts';

interface Circuit {
  failures: number;
  openUntil: number;
  probing: boolean;
}

export class InProcessProviderHealth implements ProviderHealth {
  readonly #settings: CircuitSettings;
  readonly #circuits = new Map<CircuitKey, Circuit>();

  constructor(settings: CircuitSettings) {
    this.#settings = settings;
  }

  tryAcquire(key: CircuitKey, now: number): boolean {
    const circuit = this.#circuit(key);
    if (circuit.openUntil === 0) return true;
    if (now < circuit.openUntil || circuit.probing) return false;
    circuit.probing = true;
    return true;
  }

  recordSuccess(key: CircuitKey): void {
    const circuit = this.#circuit(key);
    circuit.failures = 0;
    circuit.openUntil = 0;
    circuit.probing = false;
  }

  recordFailure(key: CircuitKey, now: number): void {
    const circuit = this.#circuit(key);
    circuit.failures++;
    if (circuit.probing || circuit.failures >= this.#settings.failureThreshold) {
      circuit.openUntil = now + this.#settings.cooldownMs;
      circuit.probing = false;
    }
  }

  release(key: CircuitKey): void {
    this.#circuit(key).probing = false;
  }

  state(key: CircuitKey, now: number): CircuitState {
    const circuit = this.#circuit(key);
    if (circuit.openUntil === 0) return 'closed';
    return now < circuit.openUntil ? 'open' : 'half_open';
  }

  #circuit(key: CircuitKey): Circuit {
    let circuit = this.#circuits.get(key);
    if (circuit === undefined) {
      circuit = { failures: 0, openUntil: 0, probing: false };
      this.#circuits.set(key, circuit);
    }
    return circuit;
  }
}
