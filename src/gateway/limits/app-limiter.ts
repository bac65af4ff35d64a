import type { AppLimits, LimitSettings } from '../../config/config-types.ts';
import { ApiError } from '../../platform/errors.ts';
import type { LimitStore } from '../../storage/limit-store.ts';
import { type LimitConvention, type LimitState, limitHeaders } from './limit-headers.ts';
import {
  type Counter,
  countersFor,
  endUserScope,
  hasLimits,
  type LimitScope,
  type Measure,
} from './limit-scopes.ts';
import { toNanoDollars } from './limit-windows.ts';

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

/** Told of each refusal (the app and the limit's name), for the admin API's refusal counts. */
export type RefusalListener = (app: string, limit: string, now: number) => void;

/** An app's team and the limits set through the admin API (the governance snapshot's view). */
export interface LimitPolicies {
  /** Limits set for the app through the admin API or the file's reset; undefined: the file's. */
  appLimits(app: string): AppLimits | undefined;
  /** The app's team and its limits, when it is in a team that has any. */
  teamOf(app: string): { name: string; limits: AppLimits } | undefined;
}

const NO_POLICIES: LimitPolicies = { appLimits: () => undefined, teamOf: () => undefined };

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
  readonly #policies: LimitPolicies;

  constructor(
    settings: LimitSettings,
    store: LimitStore,
    now: () => number,
    onRefusal: RefusalListener = () => {},
    policies: LimitPolicies = NO_POLICIES,
  ) {
    this.#settings = settings;
    this.#store = store;
    this.#now = now;
    this.#onRefusal = onRefusal;
    this.#policies = policies;
  }

  limitsFor(app: string): AppLimits {
    const set = this.#policies.appLimits(app);
    if (set !== undefined) return set;
    // App names may be `constructor` or `toString` (APP_NAME_PATTERN allows them): own entries only.
    const own = Object.hasOwn(this.#settings.apps, app) ? this.#settings.apps[app] : undefined;
    return own ?? this.#settings.default;
  }

  /**
   * The scopes a request of `app` (by `endUser`, if known) counts against, in the order they are
   * reserved and so refused: the app's, its team's, the end user's within the app, and across the
   * team. Empty when none has a limit.
   */
  scopesFor(app: string, endUser?: string): LimitScope[] {
    const scopes: LimitScope[] = [];
    const own: LimitScope = { key: app, owner: `app '${app}'`, prefix: '', limits: this.limitsFor(app) };
    const team = this.#policies.teamOf(app);
    const teamScope: LimitScope | undefined =
      team === undefined
        ? undefined
        : { key: `t/${team.name}`, owner: `team '${team.name}'`, prefix: 'team ', limits: team.limits };
    for (const scope of [own, teamScope])
      if (scope !== undefined && hasLimits(scope.limits, undefined)) scopes.push(scope);
    if (endUser !== undefined) {
      for (const scope of [own, teamScope]) {
        const user = scope === undefined ? undefined : endUserScope(scope, endUser);
        if (user !== undefined && hasLimits(user.limits, undefined)) scopes.push(user);
      }
    }
    return scopes;
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
    endUser?: string,
  ): Promise<Admission> {
    const scopes = this.scopesFor(app, endUser);
    if (scopes.length === 0) return NO_LIMITS;
    const limits = this.limitsFor(app);
    const now = this.#now();
    const leases: { key: string; id: string }[] = [];
    const releaseLeases = () => Promise.all(leases.map((l) => this.#store.releaseLease(l.key, l.id)));
    for (const scope of scopes) {
      if (scope.limits.concurrentRequests === undefined) continue;
      const key = `${scope.key}:concurrent`;
      const id = await this.#store.acquireLease(
        key,
        scope.limits.concurrentRequests,
        now,
        now + CONCURRENCY_LEASE_MS,
      );
      if (id === undefined) {
        await releaseLeases();
        const name = `${scope.prefix}concurrent requests`;
        this.#onRefusal(app, name, now);
        throw refusal(app, scope, name, 1, limits, {}, now, convention);
      }
      leases.push({ key, id });
    }
    const amounts: Record<Measure, number> = {
      requests: 1,
      tokens: requestsOnly ? 0 : estimate.tokens,
      cost: requestsOnly ? 0 : toNanoDollars(estimate.costUsd),
    };
    const made: Counter[] = [];
    const state: LimitState = {};
    for (const scope of scopes) {
      for (const counter of countersFor(scope, now)) {
        // Tokens and cost of a cached answer: nothing reserved (amounts 0), and never refused.
        const free = requestsOnly && counter.measure !== 'requests';
        const result = await this.#store.reserve(
          counter.key,
          amounts[counter.measure],
          free ? Number.MAX_SAFE_INTEGER : counter.limit,
          counter.window.resetAt,
        );
        if (!result.ok) {
          await Promise.all(
            made.map((c) => this.#store.adjust(c.key, -amounts[c.measure], c.window.resetAt)),
          );
          await releaseLeases();
          const retryAfter = Math.max(1, Math.ceil((result.resetAt - now) / 1000));
          this.#onRefusal(app, counter.name, now);
          if (scope.prefix === '') noteState(state, counter, result);
          throw refusal(app, scope, counter.name, retryAfter, limits, state, now, convention);
        }
        made.push(counter);
        // The headers tell the app's own per-minute state (CONTRACT 5.8).
        if (scope.prefix === '') noteState(state, counter, result);
      }
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
        await Promise.all([...corrections, releaseLeases()]);
      },
    };
  }

  /**
   * The app's limit state as an answer's headers, with nothing reserved: for answers that count
   * toward no limit but go to an app with limits (an MCP listing, contract 5.8 and 5.9). The
   * per-minute counters are read by reserving nothing; empty when the app has no limits.
   */
  async peek(app: string, convention: LimitConvention = 'openai'): Promise<Record<string, string>> {
    const limits = this.limitsFor(app);
    if (Object.keys(limits).length === 0) return {};
    const now = this.#now();
    const state: LimitState = {};
    for (const counter of countersFor({ key: app, owner: '', prefix: '', limits }, now)) {
      // The budgets are in no header.
      if (counter.measure === 'cost') continue;
      const result = await this.#store.reserve(
        counter.key,
        0,
        Number.MAX_SAFE_INTEGER,
        counter.window.resetAt,
      );
      noteState(state, counter, result);
    }
    return limitHeaders(limits, state, now, convention);
  }
}

/** A per-minute counter's result, kept for the headers (a refusal's `used` is what refused it). */
function noteState(state: LimitState, counter: Counter, result: { used: number; resetAt: number }): void {
  const window = { limit: counter.limit, used: result.used, resetAt: result.resetAt };
  if (counter.measure === 'requests' && counter.window.id.startsWith('m')) state.requests = window;
  else if (counter.measure === 'tokens') state.tokens = window;
}

function refusal(
  app: string,
  scope: LimitScope,
  limit: string,
  retryAfter: number,
  limits: AppLimits,
  state: LimitState,
  now: number,
  convention: LimitConvention,
): ApiError {
  const whose = scope.prefix === '' ? `app '${app}'` : `${scope.owner} (of app '${app}')`;
  return new ApiError('rate_limited', `${whose} reached its ${limit} limit`, {
    headers: { 'retry-after': String(retryAfter), ...limitHeaders(limits, state, now, convention) },
    details: { limit, retryAfterSeconds: retryAfter },
  });
}
