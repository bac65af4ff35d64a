import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { LimitStore } from '../../storage/limit-store.ts';
import { toRateLimitKey } from './client-identity.ts';

const WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignupRateLimit {
  /** Counts one signup attempt from `ip` and says whether it is within the limit. */
  take(ip: string): Promise<RateDecision>;
}

/**
 * Signups per client address per minute, counted in fixed one-minute windows in a LimitStore: the
 * in-process store by default, Redis when several instances must share the count. A fixed window
 * lets a client burst up to twice the limit across a window boundary, which is acceptable for a
 * signup form and costs one counter per client.
 *
 * While Redis is lost, its store counts in this process instead (failover-limit-store.ts). Should
 * a store still fail, signups are let through: losing a subscriber is worse than a minute of
 * unthrottled signups, and the mail re-send throttle still protects inboxes.
 */
export function createSignupRateLimit(
  store: LimitStore,
  perMinute: number,
  clock: Clock,
  logger: Logger,
): SignupRateLimit {
  return {
    async take(ip) {
      const now = clock.now();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      const resetAt = windowStart + WINDOW_MS;
      const key = `site:newsletter-signup:${toRateLimitKey(ip)}:${windowStart}`;
      try {
        const result = await store.reserve(key, 1, perMinute, resetAt);
        if (result.ok) return { allowed: true };
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((result.resetAt - now) / 1000)) };
      } catch (error) {
        logger.warn({ err: error }, 'newsletter rate limit store failed; letting the signup through');
        return { allowed: true };
      }
    },
  };
}
