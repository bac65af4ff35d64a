import type { AppLimits } from '../../config/config-types.ts';
import type {
  InsightGroup,
  InsightTotalsRow,
  RefusalGroup,
  TimeBucket,
} from '../../storage/ledger-insights.ts';
import type { Storage } from '../../storage/ports.ts';
import type { AppLimiter } from '../limits/app-limiter.ts';
import type { RefusalCounter } from '../limits/refusal-counter.ts';
import type { UsageRecorder } from '../services/ledger/usage-recorder.ts';
import { checkHourly, formatBucket, invalid, parseFilter, parseGroups, parseRange } from './admin-query.ts';
import {
  budgetUses,
  type EndUserBudget,
  endUserBudgetUses,
  endUserUsage,
  foldByTeam,
} from './governance-reports.ts';
import { latencyPercentiles } from './latency-percentiles.ts';

/** `team`: the team of the app (foldByTeam); `endUser`: the person behind a request, one app at a time. */
export type AdminUsageGroup = InsightGroup | 'team' | 'endUser';

export const ADMIN_USAGE_GROUPS: readonly AdminUsageGroup[] = [
  'app',
  'day',
  'hour',
  'provider',
  'model',
  'operation',
  'frontDoor',
  'deployment',
  'tool',
  'team',
  'endUser',
];
export const REFUSAL_GROUPS: readonly RefusalGroup[] = ['app', 'day', 'hour', 'limit'];
const MAX_FAILURES = 200;
/** The totals of a range with no requests. */
const NO_TOTALS: InsightTotalsRow = {
  requests: 0,
  errors: 0,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  tokensInCacheRead: 0,
  tokensInCacheWrite: 0,
  cacheHits: 0,
  costSavedUsd: 0,
};

export interface AdminReportDeps {
  storage: Storage;
  recorder: UsageRecorder;
  refusals: RefusalCounter;
  limiter: AppLimiter;
  now: () => number;
  /** The governance snapshot's teams: the team an app is (or was last) in, and the live teams. */
  teamOf: (app: string) => string | undefined;
  teams: () => Iterable<{ name: string; limits: AppLimits }>;
}

type Query = Record<string, string | undefined>;

/**
 * A totals row as the admin API answers it: buckets as dates, and beside the counts the error rate
 * and the response cache's hit rate (hits / requests), so the dashboard shows figures it never
 * computes.
 */
function presentTotals(row: Omit<InsightTotalsRow, 'day'> & { day?: number | string }) {
  const { hour, day, ...rest } = row;
  return {
    ...(day === undefined ? {} : { day: typeof day === 'string' ? day : formatBucket('day', day) }),
    ...(hour === undefined ? {} : { hour: formatBucket('hour', hour) }),
    ...rest,
    errorRate: shareOf(row.errors, row.requests),
    cacheHitRate: shareOf(row.cacheHits, row.requests),
  };
}

/** `part / whole` to 4 decimals; 0 of nothing. */
function shareOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

function rangeOut(range: { from: number; to: number }) {
  return { from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() };
}

/**
 * The admin API's answers, all read from the ledger's rollups (and its failures index): the
 * dashboard draws exactly these numbers. Each one first writes what this instance still holds
 * (ledger rows, refusal counts), so a request just answered is already counted.
 */
export class AdminReports {
  readonly #deps: AdminReportDeps;

  constructor(deps: AdminReportDeps) {
    this.#deps = deps;
  }

  async usage(query: Query) {
    const range = parseRange(query, this.#deps.now());
    const groupBy = parseGroups(query.groupBy, ADMIN_USAGE_GROUPS, ['day']);
    checkHourly(range, groupBy.includes('hour'), '/groupBy');
    const filters = {
      ...optional('app', parseFilter(query.app, 'app')),
      ...optional('provider', parseFilter(query.provider, 'provider')),
      ...optional('model', parseFilter(query.model, 'model')),
      ...optional('operation', parseFilter(query.operation, 'operation')),
      ...optional('frontDoor', parseFilter(query.frontDoor, 'frontDoor')),
      ...optional('deployment', parseFilter(query.deployment, 'deployment')),
      ...optional('tool', parseFilter(query.tool, 'tool')),
    };
    const team = parseFilter(query.team, 'team');
    await this.#deps.recorder.flushBeforeRead();
    const answer = (
      rows: Parameters<typeof presentTotals>[0][],
      totals: Parameters<typeof presentTotals>[0],
    ) => ({
      ...rangeOut(range),
      groupBy,
      filters: { ...filters, ...optional('team', team) },
      totals: presentTotals(totals),
      rows: rows.map(presentTotals),
    });
    if (groupBy.includes('endUser')) {
      const { app, ...others } = filters;
      if (Object.keys(others).length > 0 || team !== undefined)
        throw invalid('/groupBy', 'endUser takes the app filter only');
      const { rows, totals } = await endUserUsage(this.#deps.storage, app, range, groupBy);
      return answer(rows, totals);
    }
    const insightGroups = groupBy.filter((g): g is InsightGroup => g !== 'team' && g !== 'endUser');
    if (groupBy.includes('team') || team !== undefined) {
      // Grouped by app in the rollups, then folded to teams (governance-reports.ts).
      const byApp = insightGroups.includes('app') ? insightGroups : [...insightGroups, 'app' as const];
      const rows = await this.#deps.storage.insights.totals({ ...range, groupBy: byApp, filters });
      const folded = foldByTeam(rows, groupBy as (InsightGroup | 'team')[], team, this.#deps.teamOf);
      return answer(folded.rows, folded.totals);
    }
    const [rows, totals] = await Promise.all([
      this.#deps.storage.insights.totals({ ...range, groupBy: insightGroups, filters }),
      this.#deps.storage.insights.totals({ ...range, groupBy: [], filters }),
    ]);
    return answer(rows, totals[0] ?? NO_TOTALS);
  }

  /**
   * Each team's and app's daily and monthly budget beside what its window has spent (UTC), then
   * each `perEndUser` daily budget's heaviest end users today (endUserBudgetUses).
   */
  async budgets() {
    const now = this.#deps.now();
    const { today, thisMonth, records, todayRange } = await this.#windowSpend(now);
    const teams = [...this.#deps.teams()];
    const apps = records
      .filter((record) => record.revokedAt === null)
      .map((record) => ({
        name: record.name,
        team: this.#deps.teamOf(record.name) ?? null,
        limits: this.#deps.limiter.limitsFor(record.name),
      }));
    const perEndUser: EndUserBudget[] = [];
    for (const team of teams) {
      const limitUsd = team.limits.perEndUser?.dailyBudgetUsd;
      if (limitUsd === undefined) continue;
      // Every app whose rows count for the team, deleted ones included, as the team's own spend.
      const members = records.filter((record) => this.#deps.teamOf(record.name) === team.name);
      perEndUser.push({
        scope: 'team',
        name: team.name,
        team: team.name,
        limitUsd,
        apps: members.map((record) => record.name),
      });
    }
    for (const app of apps) {
      const limitUsd = app.limits.perEndUser?.dailyBudgetUsd;
      if (limitUsd !== undefined)
        perEndUser.push({ scope: 'app', name: app.name, team: app.team, limitUsd, apps: [app.name] });
    }
    return {
      budgets: [
        ...budgetUses({ now, teams, apps, today, thisMonth, teamOf: this.#deps.teamOf }),
        ...(await endUserBudgetUses(this.#deps.storage, perEndUser, now, todayRange)),
      ],
    };
  }

  /** What guardrails did in a range: requests per guard, phase and action (never what they matched). */
  async guardrails(query: Query) {
    const range = parseRange(query, this.#deps.now());
    await this.#deps.recorder.flushBeforeRead();
    const rows = await this.#deps.storage.insights.guardrailActions(range);
    return { ...rangeOut(range), rows };
  }

  /** Spend per app in the current UTC day and month, the windows budgets count in. */
  async #windowSpend(now: number) {
    const date = new Date(now);
    const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    const month = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const end = Math.ceil((now + 1) / 3_600_000) * 3_600_000;
    await this.#deps.recorder.flushBeforeRead();
    const [records, today, thisMonth] = await Promise.all([
      this.#deps.storage.apps.listApps(),
      this.#deps.storage.insights.totals({ from: day, to: end, groupBy: ['app'], filters: {} }),
      this.#deps.storage.insights.totals({ from: month, to: end, groupBy: ['app'], filters: {} }),
    ]);
    return { records, today, thisMonth, todayRange: { from: day, to: end } };
  }

  async latency(query: Query) {
    const range = parseRange(query, this.#deps.now());
    const bucket = parseBucket(query.bucket);
    checkHourly(range, bucket === 'hour', '/bucket');
    const filters = {
      ...optional('provider', parseFilter(query.provider, 'provider')),
      ...optional('model', parseFilter(query.model, 'model')),
    };
    if (query.app !== undefined) throw invalid('/app', 'latency is kept per provider and model, not per app');
    await this.#deps.recorder.flushBeforeRead();
    const [overall, perBucket] = await Promise.all([
      this.#deps.storage.insights.latency({ ...range, bucket: undefined, filters }),
      bucket === undefined
        ? Promise.resolve([])
        : this.#deps.storage.insights.latency({ ...range, bucket, filters }),
    ]);
    const byStart = new Map<number, { bin: number; requests: number }[]>();
    for (const row of perBucket) {
      const start = row.start ?? 0;
      const list = byStart.get(start) ?? [];
      list.push(row);
      byStart.set(start, list);
    }
    return {
      ...rangeOut(range),
      bucket: bucket ?? null,
      filters,
      overall: latencyPercentiles(overall),
      rows: [...byStart].map(([start, bins]) => ({
        [bucket ?? 'day']: formatBucket(bucket ?? 'day', start),
        ...latencyPercentiles(bins),
      })),
    };
  }

  async refusals(query: Query) {
    const range = parseRange(query, this.#deps.now());
    const groupBy = parseGroups(query.groupBy, REFUSAL_GROUPS, ['day']);
    checkHourly(range, groupBy.includes('hour'), '/groupBy');
    const app = parseFilter(query.app, 'app');
    await this.#deps.refusals.flush();
    const [rows, total] = await Promise.all([
      this.#deps.storage.insights.refusals({ ...range, groupBy, ...optional('app', app) }),
      this.#deps.storage.insights.refusals({ ...range, groupBy: [], ...optional('app', app) }),
    ]);
    return {
      ...rangeOut(range),
      groupBy,
      filters: optional('app', app),
      total: total[0]?.refusals ?? 0,
      rows: rows.map(({ day, hour, ...rest }) => ({
        ...(day === undefined ? {} : { day: formatBucket('day', day) }),
        ...(hour === undefined ? {} : { hour: formatBucket('hour', hour) }),
        ...rest,
      })),
    };
  }

  async failures(query: Query) {
    const range = parseRange(query, this.#deps.now());
    const app = parseFilter(query.app, 'app');
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FAILURES)
      throw invalid('/limit', `must be an integer from 1 to ${MAX_FAILURES}`);
    await this.#deps.recorder.flushBeforeRead();
    const rows = await this.#deps.storage.insights.failures({ ...range, limit, ...optional('app', app) });
    return {
      ...rangeOut(range),
      filters: optional('app', app),
      failures: rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt).toISOString() })),
    };
  }

  /** Every app with its limits and its use in the windows the budgets count in (UTC day and month). */
  async apps() {
    const { records, today, thisMonth } = await this.#windowSpend(this.#deps.now());
    const use = (rows: InsightTotalsRow[], app: string) => {
      const row = rows.find((r) => r.app === app);
      return { requests: row?.requests ?? 0, errors: row?.errors ?? 0, costUsd: row?.costUsd ?? 0 };
    };
    return {
      apps: records.map((record) => ({
        // Name, dates and limits only: the secret's hash never leaves storage.
        name: record.name,
        status: record.revokedAt === null ? 'active' : 'revoked',
        createdAt: new Date(record.createdAt).toISOString(),
        rotatedAt: record.rotatedAt === null ? null : new Date(record.rotatedAt).toISOString(),
        revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt).toISOString(),
        limits: this.#deps.limiter.limitsFor(record.name),
        today: use(today, record.name),
        thisMonth: use(thisMonth, record.name),
      })),
    };
  }
}

function parseBucket(value: string | undefined): TimeBucket | undefined {
  if (value === undefined || value === 'none') return value === undefined ? 'day' : undefined;
  if (value === 'day' || value === 'hour') return value;
  throw invalid('/bucket', 'must be day, hour or none');
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
