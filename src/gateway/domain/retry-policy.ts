import type { RetrySettings } from '../../config/config-types.ts';

/**
 * Delay before retry number `retry` (0 for the first retry): exponential from the base, capped,
 * with "equal jitter" (half fixed, half random) so synchronised clients spread out, and never
 * shorter than what the upstream asked for with Retry-After.
 */
export function backoffDelay(
  retry: number,
  settings: RetrySettings,
  retryAfterMs: number | undefined,
  random: number,
): number {
  const exponential = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retry);
  const jittered = exponential / 2 + (exponential / 2) * random;
  return Math.max(jittered, retryAfterMs ?? 0);
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'not_retryable' | 'retries_exhausted' | 'budget_exhausted' };

export interface FailureFacts {
  retryable: boolean;
  retryAfterMs: number | undefined;
  /** Retries already made on this candidate. */
  retriesSoFar: number;
  /** Milliseconds left of the request's retry budget. */
  budgetLeftMs: number;
}

export function decideRetry(facts: FailureFacts, settings: RetrySettings, random: number): RetryDecision {
  if (!facts.retryable) return { retry: false, reason: 'not_retryable' };
  if (facts.retriesSoFar >= settings.maxRetries) return { retry: false, reason: 'retries_exhausted' };
  const delayMs = backoffDelay(facts.retriesSoFar, settings, facts.retryAfterMs, random);
  if (delayMs >= facts.budgetLeftMs) return { retry: false, reason: 'budget_exhausted' };
  return { retry: true, delayMs };
}
