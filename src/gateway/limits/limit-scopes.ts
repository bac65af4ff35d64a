import type { AppLimits } from '../../config/config-types.ts';
import { dayWindow, type LimitWindow, minuteWindow, monthWindow, toNanoDollars } from './limit-windows.ts';

export type Measure = 'requests' | 'tokens' | 'cost';

/** One counter a request is reserved against. */
export interface Counter {
  /** The limit's name as `details.limit` says it (`daily budget`, `team daily budget`…). */
  name: string;
  limit: number;
  key: string;
  measure: Measure;
  window: LimitWindow;
}

/**
 * Whose limits a request counts against (CONTRACT 6.5): its app's, its team's, and, where set, its
 * end user's within the app or across the team's apps. Keys of a team start `t/` and of an end
 * user hold `/u/`: no app name holds a '/', so no two scopes share a counter.
 */
export interface LimitScope {
  /** Counter keys start with this. */
  key: string;
  /** Said in a refusal: `app 'web'`, `team 'search'`. */
  owner: string;
  /** Put before each limit's name: '' for the app, `team ` for its team, `end user ` for an end user. */
  prefix: string;
  limits: AppLimits;
}

export function countersFor(scope: LimitScope, now: number): Counter[] {
  const { limits, key, prefix } = scope;
  const minute = minuteWindow(now);
  const day = dayWindow(now);
  const month = monthWindow(now);
  const counters: (Omit<Counter, 'limit'> & { limit: number | undefined })[] = [
    {
      name: `${prefix}requests per minute`,
      limit: limits.requestsPerMinute,
      key: `${key}:rpm:${minute.id}`,
      measure: 'requests',
      window: minute,
    },
    {
      name: `${prefix}tokens per minute`,
      limit: limits.tokensPerMinute,
      key: `${key}:tpm:${minute.id}`,
      measure: 'tokens',
      window: minute,
    },
    {
      name: `${prefix}daily budget`,
      limit: nanoLimit(limits.dailyBudgetUsd),
      key: `${key}:usd:${day.id}`,
      measure: 'cost',
      window: day,
    },
    {
      name: `${prefix}monthly budget`,
      limit: nanoLimit(limits.monthlyBudgetUsd),
      key: `${key}:usd:${month.id}`,
      measure: 'cost',
      window: month,
    },
  ];
  return counters.filter((c): c is Counter => c.limit !== undefined);
}

function nanoLimit(usd: number | undefined): number | undefined {
  return usd === undefined ? undefined : toNanoDollars(usd);
}

/** The end user's limits of an app or team (`perEndUser`), as limits of their own. */
export function endUserScope(owner: LimitScope, endUser: string): LimitScope | undefined {
  const per = owner.limits.perEndUser;
  if (per === undefined) return undefined;
  const limits: AppLimits = {};
  if (per.requestsPerMinute !== undefined) limits.requestsPerMinute = per.requestsPerMinute;
  if (per.dailyBudgetUsd !== undefined) limits.dailyBudgetUsd = per.dailyBudgetUsd;
  return {
    key: `${owner.key}/u/${endUser}`,
    owner: `an end user of ${owner.owner}`,
    prefix: 'end user ',
    limits,
  };
}

/** Whether limits hold anything to count (perEndUser alone counts only with an end user). */
export function hasLimits(limits: AppLimits, endUser: string | undefined): boolean {
  for (const name of Object.keys(limits)) if (name !== 'perEndUser' || endUser !== undefined) return true;
  return false;
}
