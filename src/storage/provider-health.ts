import type { ProviderSlot } from '../config/config-types.ts';

export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * Per-slot circuit breaker state, a port like the others: the in-process implementation
 * (`gateway/health/circuit-breaker.ts`) is the default; the Redis one (`redis/redis-provider-health.ts`)
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
