import type { CircuitSettings, ProviderSlot } from '../../config/config-types.ts';
import type { CircuitState, ProviderHealth } from '../../storage/provider-health.ts';

interface SlotCircuit {
  failures: number;
  openUntil: number;
  probing: boolean;
}

export class InProcessProviderHealth implements ProviderHealth {
  readonly #settings: CircuitSettings;
  readonly #slots = new Map<ProviderSlot, SlotCircuit>();

  constructor(settings: CircuitSettings) {
    this.#settings = settings;
  }

  tryAcquire(slot: ProviderSlot, now: number): boolean {
    const circuit = this.#circuit(slot);
    if (circuit.openUntil === 0) return true;
    if (now < circuit.openUntil || circuit.probing) return false;
    circuit.probing = true;
    return true;
  }

  recordSuccess(slot: ProviderSlot): void {
    const circuit = this.#circuit(slot);
    circuit.failures = 0;
    circuit.openUntil = 0;
    circuit.probing = false;
  }

  recordFailure(slot: ProviderSlot, now: number): void {
    const circuit = this.#circuit(slot);
    circuit.failures++;
    if (circuit.probing || circuit.failures >= this.#settings.failureThreshold) {
      circuit.openUntil = now + this.#settings.cooldownMs;
      circuit.probing = false;
    }
  }

  release(slot: ProviderSlot): void {
    this.#circuit(slot).probing = false;
  }

  state(slot: ProviderSlot, now: number): CircuitState {
    const circuit = this.#circuit(slot);
    if (circuit.openUntil === 0) return 'closed';
    return now < circuit.openUntil ? 'open' : 'half_open';
  }

  #circuit(slot: ProviderSlot): SlotCircuit {
    let circuit = this.#slots.get(slot);
    if (circuit === undefined) {
      circuit = { failures: 0, openUntil: 0, probing: false };
      this.#slots.set(slot, circuit);
    }
    return circuit;
  }
}
