import type { ProviderSlot } from '../../config/config-types.ts';

export interface CircuitSettings {
  /** Consecutive retryable failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one probe is let through. */
  cooldownMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * Per-slot circuit breaker. The in-process implementation is the default; a shared one (Redis)
 * implements the same interface so several gateway instances agree on a failing upstream.
 */
export interface ProviderHealth {
  /** Whether a call to `slot` may go out now. In half-open state only one probe is allowed at a time. */
  tryAcquire(slot: ProviderSlot, now: number): boolean;
  recordSuccess(slot: ProviderSlot): void;
  /** Only failures that say something about the upstream's health (retryable ones) should be recorded. */
  recordFailure(slot: ProviderSlot, now: number): void;
  /** The call ended without saying anything of the upstream's health (the client left): free the probe. */
  release(slot: ProviderSlot): void;
  state(slot: ProviderSlot, now: number): CircuitState;
  close?(): Promise<void>;
}

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
