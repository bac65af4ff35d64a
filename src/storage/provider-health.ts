import { PROVIDER_SLOTS, type ProviderSlot, type SlotSettings } from '../config/config-types.ts';

export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * What one circuit guards: a slot of one upstream (`provider-a`, as it always was), or one
 * deployment of a slot that lists several (`provider-a/east`, CONTRACT 5.9).
 */
export type CircuitKey = string;

export function circuitKey(slot: ProviderSlot, deployment: string | null): CircuitKey {
  return deployment === null ? slot : `${slot}/${deployment}`;
}

/** Every circuit the configuration has: one per slot without deployments, one per deployment. */
export function configuredCircuits(
  providers: Record<ProviderSlot, Pick<SlotSettings, 'deployments'>>,
): { key: CircuitKey; slot: ProviderSlot; deployment: string | null }[] {
  return PROVIDER_SLOTS.flatMap((slot) => {
    const names = providers[slot].deployments.map((deployment) => deployment.name);
    return (names.length === 0 ? [null] : names).map((deployment) => ({
      key: circuitKey(slot, deployment),
      slot,
      deployment,
    }));
  });
}

/**
 * Circuit breaker state per upstream, a port like the others: the in-process implementation
 * (`gateway/health/circuit-breaker.ts`) is the default; the Redis one (`redis/redis-provider-health.ts`)
 * implements the same interface so several gateway instances agree on a failing upstream.
 */
export interface ProviderHealth {
  /** Whether a call to `key` may go out now. In half-open state only one probe is allowed at a time. */
  tryAcquire(key: CircuitKey, now: number): boolean;
  recordSuccess(key: CircuitKey): void;
  /** Only failures that say something about the upstream's health (retryable ones) should be recorded. */
  recordFailure(key: CircuitKey, now: number): void;
  /** The call ended without saying anything of the upstream's health (the client left): free the probe. */
  release(key: CircuitKey): void;
  state(key: CircuitKey, now: number): CircuitState;
  close?(): Promise<void>;
}
