import type { AppLimits, LimitSettings } from '../../config/config-types.ts';
import { ApiError } from '../../platform/errors.ts';
import type { LimitStore } from '../../storage/limit-store.ts';
import { dayWindow, type LimitWindow, minuteWindow, monthWindow, toNanoDollars } from './limit-windows.ts';

/** What a request is expected to use, reserved up front and settled when it ends. */
export interface UsageEstimate {
  tokens: number;
  costUsd: number;
}

export interface Admission {
  /** RateLimit header fields to send with the answer. */
  headers: Record<string, string>;
  /** Replaces the reservation with what was used; frees the concurrency slot. Safe to call once. */
  settle(actual: UsageEstimate): Promise<void>;
}

interface Reservation {
  key: string;
  amount: number;
  window: LimitWindow;
}

const NO_LIMITS: Admission = { headers: {}, settle: async () => {} };
// A concurrency slot lives at most this long, so a crashed instance cannot hold one forever.
const CONCURRENCY_LEASE_MS = 10 * 60_000;

/**
 * Per-app limits, enforced as reserve-then-settle: requests and concurrency are reserved on
 * admission, tokens and cost as estimated, then corrected to the actual figures when the request
 * ends. A refused reservation rolls back the ones already made and answers 429 with Retry-After.
 */
export class AppLimiter {
  readonly #settings: LimitSettings;
  readonly #store: LimitStore;
  readonly #now: () => number;

  constructor(settings: LimitSettings, store: LimitStore, now: () => number) {
    this.#settings = settings;
    this.#store = store;
    this.#now = now;
  }

  limitsFor(app: string): AppLimits {
    return this.#settings.apps[app] ?? this.#settings.default;
  }

  async admit(app: string, estimate: UsageEstimate): Promise<Admission> {
    const limits = this.limitsFor(app);
    if (Object.keys(limits).length === 0) return NO_LIMITS;
    const now = this.#now();
    const minute = minuteWindow(now);
    const checks: {
      name: string;
      limit: number | undefined;
      key: string;
      amount: number;
      window: LimitWindow;
    }[] = [
      {
        name: 'concurrent requests',
        limit: limits.concurrentRequests,
        key: `${app}:conc`,
        amount: 1,
        window: { id: '', resetAt: now + CONCURRENCY_LEASE_MS },
      },
      {
        name: 'requests per minute',
        limit: limits.requestsPerMinute,
        key: `${app}:rpm:${minute.id}`,
        amount: 1,
        window: minute,
      },
      {
        name: 'tokens per minute',
        limit: limits.tokensPerMinute,
        key: `${app}:tpm:${minute.id}`,
        amount: estimate.tokens,
        window: minute,
      },
      budgetCheck('daily budget', limits.dailyBudgetUsd, app, 'day', dayWindow(now), estimate.costUsd),
      budgetCheck(
        'monthly budget',
        limits.monthlyBudgetUsd,
        app,
        'month',
        monthWindow(now),
        estimate.costUsd,
      ),
    ];
    const made: Reservation[] = [];
    let rpm: { used: number; resetAt: number } | undefined;
    for (const check of checks) {
      if (check.limit === undefined) continue;
      const result = await this.#store.reserve(check.key, check.amount, check.limit, check.window.resetAt);
      if (!result.ok) {
        await this.#rollBack(made);
        const retryAfter =
          check.name === 'concurrent requests' ? 1 : Math.max(1, Math.ceil((result.resetAt - now) / 1000));
        throw new ApiError('rate_limited', `app '${app}' reached its ${check.name} limit`, {
          headers: { 'retry-after': String(retryAfter), ...rateLimitHeaders(limits, rpm, now) },
          details: { limit: check.name, retryAfterSeconds: retryAfter },
        });
      }
      made.push({ key: check.key, amount: check.amount, window: check.window });
      if (check.name === 'requests per minute') rpm = result;
    }
    let settled = false;
    return {
      headers: rateLimitHeaders(limits, rpm, now),
      settle: async (actual) => {
        if (settled) return;
        settled = true;
        await Promise.all(
          made.map((reservation) => {
            const delta = settleDelta(reservation, estimate, actual);
            return delta === 0
              ? undefined
              : this.#store.adjust(reservation.key, delta, reservation.window.resetAt);
          }),
        );
      },
    };
  }

  async #rollBack(made: Reservation[]): Promise<void> {
    await Promise.all(made.map((r) => this.#store.adjust(r.key, -r.amount, r.window.resetAt)));
  }
}

function budgetCheck(
  name: string,
  limitUsd: number | undefined,
  app: string,
  period: string,
  window: LimitWindow,
  costUsd: number,
) {
  return {
    name,
    limit: limitUsd === undefined ? undefined : toNanoDollars(limitUsd),
    key: `${app}:${period}:${window.id}`,
    amount: toNanoDollars(costUsd),
    window,
  };
}

/** What to add to a reservation so it reflects actual use: the concurrency slot is freed, tokens and cost trued up. */
function settleDelta(reservation: Reservation, estimate: UsageEstimate, actual: UsageEstimate): number {
  if (reservation.key.endsWith(':conc')) return -1;
  if (reservation.key.includes(':tpm:')) return actual.tokens - estimate.tokens;
  if (reservation.key.includes(':day:') || reservation.key.includes(':month:')) {
    return toNanoDollars(actual.costUsd) - toNanoDollars(estimate.costUsd);
  }
  return 0;
}

/** RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers) for the requests-per-minute policy. */
function rateLimitHeaders(
  limits: AppLimits,
  rpm: { used: number; resetAt: number } | undefined,
  now: number,
): Record<string, string> {
  if (limits.requestsPerMinute === undefined) return {};
  const remaining = Math.max(0, limits.requestsPerMinute - (rpm?.used ?? limits.requestsPerMinute));
  const reset = Math.max(0, Math.ceil(((rpm?.resetAt ?? minuteWindow(now).resetAt) - now) / 1000));
  return {
    'ratelimit-policy': `"requests";q=${limits.requestsPerMinute};w=60`,
    ratelimit: `"requests";r=${remaining};t=${reset}`,
  };
}
