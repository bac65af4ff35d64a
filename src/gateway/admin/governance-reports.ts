import type { AppLimits } from '../../config/config-types.ts';
import type { InsightGroup, InsightRange, InsightTotalsRow } from '../../storage/ledger-insights.ts';
import type { Storage, UsageTotalsRow } from '../../storage/ports.ts';
import { roundDollars } from '../../storage/usage-rows.ts';
import { dayWindow, monthWindow } from '../limits/limit-windows.ts';
import { invalid } from './admin-query.ts';

/** A totals row of the admin API before presentation, with the team an app's spend counts for. */
export type TeamTotalsRow = InsightTotalsRow & { team?: string | null };

const SUMS = [
  'requests',
  'errors',
  'tokensIn',
  'tokensOut',
  'costUsd',
  'tokensInCacheRead',
  'tokensInCacheWrite',
  'cacheHits',
  'costSavedUsd',
] as const;

/**
 * Spend by team from the rollups' spend by app: each app's rows count for the team the app is in
 * (or was in when it was deleted; decision 0026), so the answer costs what grouping by app does
 * and needs no team column in the rollups. Rows are folded to the groups asked for; a `team`
 * filter keeps the rows of that team's apps. Returns the folded rows and their totals.
 */
export function foldByTeam(
  rows: readonly InsightTotalsRow[],
  groupBy: readonly (InsightGroup | 'team')[],
  team: string | undefined,
  teamOf: (app: string) => string | undefined,
): { rows: TeamTotalsRow[]; totals: TeamTotalsRow } {
  const folded = new Map<string, TeamTotalsRow>();
  const totals = emptyRow();
  for (const row of rows) {
    const rowTeam = teamOf(row.app ?? '') ?? null;
    if (team !== undefined && rowTeam !== team) continue;
    const full: Record<string, unknown> = { ...row, team: rowTeam };
    const keyed: Record<string, unknown> = {};
    for (const group of groupBy) keyed[group] = full[group] ?? null;
    const key = JSON.stringify(groupBy.map((group) => keyed[group]));
    let target = folded.get(key);
    if (target === undefined) {
      target = { ...keyed, ...emptyRow() } as TeamTotalsRow;
      folded.set(key, target);
    }
    addInto(target, row);
    addInto(totals, row);
  }
  const out = [...folded.values()].map(rounded);
  out.sort((a, b) => compareBy(a, b, groupBy));
  return { rows: out, totals: rounded(totals) };
}

function emptyRow(): InsightTotalsRow {
  return Object.fromEntries(SUMS.map((name) => [name, 0])) as unknown as InsightTotalsRow;
}

function addInto(target: InsightTotalsRow, row: InsightTotalsRow): void {
  for (const name of SUMS) target[name] += row[name];
}

function rounded<R extends InsightTotalsRow>(row: R): R {
  return { ...row, costUsd: roundDollars(row.costUsd), costSavedUsd: roundDollars(row.costSavedUsd) };
}

function compareBy(a: object, b: object, groupBy: readonly string[]): number {
  for (const group of groupBy) {
    const x = (a as Record<string, unknown>)[group] ?? '';
    const y = (b as Record<string, unknown>)[group] ?? '';
    if (x !== y) return (x as string | number) < (y as string | number) ? -1 : 1;
  }
  return 0;
}

/**
 * One app's spend by end user (and day), read from the ledger's rows by the (app, created_at,
 * end_user) index as GET /v1/usage reads it: end users are too many for the rollups' keys.
 */
export async function endUserUsage(
  storage: Storage,
  app: string | undefined,
  range: InsightRange,
  groupBy: readonly string[],
): Promise<{ rows: UsageTotalsRow[]; totals: UsageTotalsRow }> {
  if (app === undefined) throw invalid('/groupBy', 'endUser is read one app at a time: add app=<the app>');
  const extra = groupBy.find((group) => group !== 'endUser' && group !== 'day');
  if (extra !== undefined) throw invalid('/groupBy', `endUser goes with day only, not with ${extra}`);
  const groups = groupBy as readonly ('endUser' | 'day')[];
  const [rows, totals] = await Promise.all([
    storage.usage.totals({ app, ...range, groupBy: groups }),
    storage.usage.totals({ app, ...range, groupBy: [] }),
  ]);
  return { rows, totals: totals[0] as UsageTotalsRow };
}

/** One budget and what its window has spent so far (the ledger's figures, as the apps report's). */
export interface BudgetUse {
  /** `endUser`: one person's use of an app's or a team's `perEndUser` daily budget. */
  scope: 'team' | 'app' | 'endUser';
  /** The team or app; for `endUser`, the end user as the ledger keeps them. */
  name: string;
  team: string | null;
  /** For `endUser`: the app whose `perEndUser` budget it is; null for a team's (counted across its apps). */
  app?: string | null;
  window: 'day' | 'month';
  limitUsd: number;
  spentUsd: number;
  /** spent / limit to 4 decimals; above 1 when a concurrent burst passed it (by one reservation at most). */
  used: number;
  resetsAt: string;
}

/** A budget's `used` (spent over limit, to 4 decimals) and when its window resets. */
function useOf(spentUsd: number, limitUsd: number, resetAt: number): Pick<BudgetUse, 'used' | 'resetsAt'> {
  return {
    used: Math.round((spentUsd / limitUsd) * 10_000) / 10_000,
    resetsAt: new Date(resetAt).toISOString(),
  };
}

/**
 * Every team's and app's daily and monthly budget with its spend in the current UTC day and month.
 * A team's spend is its apps' (as `foldByTeam` counts it); the limiter's counters, which also hold
 * reservations in flight, are not read: they may live in one process's memory.
 */
export function budgetUses(input: {
  now: number;
  teams: Iterable<{ name: string; limits: AppLimits }>;
  apps: Iterable<{ name: string; team: string | null; limits: AppLimits }>;
  today: readonly InsightTotalsRow[];
  thisMonth: readonly InsightTotalsRow[];
  teamOf: (app: string) => string | undefined;
}): BudgetUse[] {
  const spend = (rows: readonly InsightTotalsRow[], scope: 'team' | 'app', name: string) =>
    roundDollars(
      rows
        .filter((row) => (scope === 'app' ? row.app === name : input.teamOf(row.app ?? '') === name))
        .reduce((sum, row) => sum + row.costUsd, 0),
    );
  const windows = [
    {
      window: 'day' as const,
      field: 'dailyBudgetUsd' as const,
      rows: input.today,
      ends: dayWindow(input.now),
    },
    {
      window: 'month' as const,
      field: 'monthlyBudgetUsd' as const,
      rows: input.thisMonth,
      ends: monthWindow(input.now),
    },
  ];
  const uses: BudgetUse[] = [];
  const entries = [
    ...[...input.teams].map((t) => ({
      scope: 'team' as const,
      name: t.name,
      team: t.name,
      limits: t.limits,
    })),
    ...[...input.apps].map((a) => ({ scope: 'app' as const, ...a })),
  ];
  for (const entry of entries)
    for (const { window, field, rows, ends } of windows) {
      const limitUsd = entry.limits[field];
      if (limitUsd === undefined) continue;
      const spentUsd = spend(rows, entry.scope, entry.name);
      uses.push({
        scope: entry.scope,
        name: entry.name,
        team: entry.team,
        window,
        limitUsd,
        spentUsd,
        ...useOf(spentUsd, limitUsd, ends.resetAt),
      });
    }
  return uses;
}

/** End users shown per `perEndUser` budget, the most spent first: an app may serve thousands of people. */
export const END_USERS_PER_BUDGET = 20;

/** An app's or a team's `perEndUser` daily budget, and the apps whose rows count for it. */
export interface EndUserBudget {
  scope: 'app' | 'team';
  name: string;
  team: string | null;
  limitUsd: number;
  apps: readonly string[];
}

/**
 * Each `perEndUser` daily budget's heaviest users `today` (the UTC day so far, as the budgets'
 * other figures read it): the END_USERS_PER_BUDGET who spent most, with what they spent. A team's
 * counts across its apps, as the limiter counts it. Read from the ledger's rows of each app by the
 * (app, created_at, end_user) index, as the spend by end user is: people are too many to be a key
 * of the rollups.
 */
export async function endUserBudgetUses(
  storage: Storage,
  budgets: readonly EndUserBudget[],
  now: number,
  today: InsightRange,
): Promise<BudgetUse[]> {
  const ends = dayWindow(now);
  const { from, to } = today;
  const spentByApp = new Map<string, Promise<readonly UsageTotalsRow[]>>();
  const spentIn = (app: string) => {
    let rows = spentByApp.get(app);
    if (rows === undefined) {
      rows = storage.usage
        .totals({ app, from, to, groupBy: ['endUser'] })
        .then((found) => found.filter((row) => row.endUser !== null && row.endUser !== undefined));
      spentByApp.set(app, rows);
    }
    return rows;
  };
  const uses: BudgetUse[] = [];
  for (const budget of budgets) {
    const spent = new Map<string, number>();
    // One app at a time: the reads queue on one thread anyway (ledger-reader.ts), and a team of
    // hundreds of apps must not fill its queue of waiting reads at once.
    for (const app of budget.apps)
      for (const row of await spentIn(app))
        spent.set(row.endUser as string, (spent.get(row.endUser as string) ?? 0) + row.costUsd);
    const heaviest = [...spent]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, END_USERS_PER_BUDGET);
    for (const [endUser, cost] of heaviest) {
      const spentUsd = roundDollars(cost);
      uses.push({
        scope: 'endUser',
        name: endUser,
        team: budget.team,
        app: budget.scope === 'app' ? budget.name : null,
        window: 'day',
        limitUsd: budget.limitUsd,
        spentUsd,
        ...useOf(spentUsd, budget.limitUsd, ends.resetAt),
      });
    }
  }
  return uses;
}
