import type { AppLimits, LimitSettings } from '../../config/config-types.ts';
import { ApiError } from '../../platform/errors.ts';
import type { LimitStore } from '../../storage/limit-store.ts';
import { type LimitConvention, type LimitState, limitHeaders } from './limit-headers.ts';
import { dayWindow, type LimitWindow, minuteWindow, monthWindow, toNanoDollars } from './limit-windows.ts';

/** What a request is expected to use, reserved up front and settled when it ends. */
export interface UsageEstimate {
  tokens: number;
  costUsd: number;
}

export interface Admission {
  /** The limit state's header fields to send with the answer, in the door's convention (limit-headers.ts). */
  headers: Record<string, string>;
  /** Replaces the reservation with what was used and frees the concurrency lease. Runs once. */
  settle(actual: UsageEstimate): Promise<void>;
}

type Measure = 'requests' | 'tokens' | 'cost';

/** Told of each refusal (the app and the limit's name), for the admin API's refusal counts. */
export type RefusalListener = (app: string, limit: string, now: number) => void;

interface Counter {
  name: string;
  limit: number;
  key: string;
  measure: Measure;
  window: LimitWindow;
}

const NO_LIMITS: Admission = { headers: {}, settle: async () => {} };
// A concurrency lease lives at most this long, so a crashed instance cannot hold one forever.
const CONCURRENCY_LEASE_MS = 10 * 60_000;

/**
 * Per-app limits, enforced as reserve-then-settle: a concurrency lease and one request are taken
 * on admission, tokens and cost reserved as estimated, then corrected to the actual figures when
 * the request ends. A refusal rolls back what was already reserved and answers 429 with
 * Retry-After. Counters live in a LimitStore: in-process, or Redis shared by every instance.
 */
export class AppLimiter {
  readonly #settings: LimitSettings;
  readonly #store: LimitStore;
  readonly #now: () => number;
  readonly #onRefusal: RefusalListener;

  constructor(
    settings: LimitSettings,
    store: LimitStore,
    now: () => number,
    onRefusal: RefusalListener = () => {},
  ) {
    this.#settings = settings;
    this.#store = store;
    this.#now = now;
    this.#onRefusal = onRefusal;
  }

  limitsFor(app: string): AppLimits {
    // App names may be `constructor` or `toString` (APP_NAME_PATTERN allows them): own entries only.
    const own = Object.hasOwn(this.#settings.apps, app) ? this.#settings.apps[app] : undefined;
    return own ?? this.#settings.default;
  }

  /**
   * `requestsOnly`: an answer from the response cache (CONTRACT 5.5), which counts toward the
   * request limits (per minute, concurrent) and never toward tokens or budgets: their counters are
   * read for the headers, with nothing reserved and no refusal.
   */
  async admit(
    app: string,
    estimate: UsageEstimate,
    convention: LimitConvention = 'openai',
    requestsOnly = false,
  ): Promise<Admission> {
    const limits = this.limitsFor(app);
    if (Object.keys(limits).length === 0) return NO_LIMITS;
    const now = this.#now();
    let lease: string | undefined;
    const leaseKey = `${app}:concurrent`;
    if (limits.concurrentRequests !== undefined) {
      lease = await this.#store.acquireLease(
        leaseKey,
        limits.concurrentRequests,
        now,
        now + CONCURRENCY_LEASE_MS,
      );
      if (lease === undefined) {
        this.#onRefusal(app, 'concurrent requests', now);
        throw refusal(app, 'concurrent requests', 1, limits, {}, now, convention);
      }
    }
    const amounts: Record<Measure, number> = {
      requests: 1,
      tokens: requestsOnly ? 0 : estimate.tokens,
      cost: requestsOnly ? 0 : toNanoDollars(estimate.costUsd),
    };
    const made: Counter[] = [];
    const state: LimitState = {};
    for (const counter of countersFor(app, limits, now)) {
      // Tokens and cost of a cached answer: nothing reserved (amounts 0), and never refused.
      const free = requestsOnly && counter.measure !== 'requests';
      const result = await this.#store.reserve(
        counter.key,
        amounts[counter.measure],
        free ? Number.MAX_SAFE_INTEGER : counter.limit,
        counter.window.resetAt,
      );
      if (!result.ok) {
        await Promise.all(made.map((c) => this.#store.adjust(c.key, -amounts[c.measure], c.window.resetAt)));
        if (lease !== undefined) await this.#store.releaseLease(leaseKey, lease);
        const retryAfter = Math.max(1, Math.ceil((result.resetAt - now) / 1000));
        this.#onRefusal(app, counter.name, now);
        noteState(state, counter, result);
        throw refusal(app, counter.name, retryAfter, limits, state, now, convention);
      }
      made.push(counter);
      noteState(state, counter, result);
    }
    let settled = false;
    return {
      headers: limitHeaders(limits, state, now, convention),
      settle: async (actual) => {
        if (settled) return;
        settled = true;
        const used: Record<Measure, number> = {
          requests: 1,
          tokens: actual.tokens,
          cost: toNanoDollars(actual.costUsd),
        };
        const corrections = made
          .filter((c) => used[c.measure] !== amounts[c.measure])
          .map((c) => this.#store.adjust(c.key, used[c.measure] - amounts[c.measure], c.window.resetAt));
        if (lease !== undefined) corrections.push(this.#store.releaseLease(leaseKey, lease));
        await Promise.all(corrections);
      },
    };
  }
}

function countersFor(app: string, limits: AppLimits, now: number): Counter[] {
  const minute = minuteWindow(now);
  const day = dayWindow(now);
  const month = monthWindow(now);
  const counters: (Omit<Counter, 'limit'> & { limit: number | undefined })[] = [
    {
      name: 'requests per minute',
      limit: limits.requestsPerMinute,
      key: `${app}:rpm:${minute.id}`,
      measure: 'requests',
      window: minute,
    },
    {
      name: 'tokens per minute',
      limit: limits.tokensPerMinute,
      key: `${app}:tpm:${minute.id}`,
      measure: 'tokens',
      window: minute,
    },
    {
      name: 'daily budget',
      limit: nanoLimit(limits.dailyBudgetUsd),
      key: `${app}:usd:${day.id}`,
      measure: 'cost',
      window: day,
    },
    {
      name: 'monthly budget',
      limit: nanoLimit(limits.monthlyBudgetUsd),
      key: `${app}:usd:${month.id}`,
      measure: 'cost',
      window: month,
    },
  ];
  return counters.filter((c): c is Counter => c.limit !== undefined);
}

function nanoLimit(usd: number | undefined): number | undefined {
  return usd === undefined ? undefined : toNanoDollars(usd);
}

/** A per-minute counter's result, kept for the headers (a refusal's `used` is what refused it). */
function noteState(state: LimitState, counter: Counter, result: { used: number; resetAt: number }): void {
  const window = { limit: counter.limit, used: result.used, resetAt: result.resetAt };
  if (counter.name === 'requests per minute') state.requests = window;
  else if (counter.name === 'tokens per minute') state.tokens = window;
}

function refusal(
  app: string,
  limit: string,
  retryAfter: number,
  limits: AppLimits,
  state: LimitState,
  now: number,
  convention: LimitConvention,
): ApiError {
  return new ApiError('rate_limited', `app '${app}' reached its ${limit} limit`, {
    headers: { 'retry-after': String(retryAfter), ...limitHeaders(limits, state, now, convention) },
    details: { limit, retryAfterSeconds: retryAfter },
  });
}
