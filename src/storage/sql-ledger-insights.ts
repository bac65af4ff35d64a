import type {
  FailureQuery,
  FailureRow,
  GuardrailActionRow,
  InsightFilters,
  InsightGroup,
  InsightRange,
  InsightTotalsQuery,
  InsightTotalsRow,
  LatencyBinRow,
  LatencyQuery,
  LedgerInsights,
  RefusalCount,
  RefusalGroup,
  RefusalQuery,
  RefusalRow,
} from './ledger-insights.ts';
import { roundDollars } from './usage-rows.ts';

/**
 * Runs one statement written with `?` placeholders; the engine's adapter renumbers them if it must.
 * `owner` is the app a read is scoped to (undefined: the operator's), for the embedded reader's
 * share of its queue per app (ledger-reader.ts).
 */
export type RunSql = (
  sql: string,
  params: readonly (string | number)[],
  owner?: string,
) => Promise<Record<string, unknown>[]>;

const DAY_MS = 86_400_000;
const DAY_OF = (column: string) => `${column} / ${DAY_MS} * ${DAY_MS}`;

const TOTALS_COLUMNS: Record<InsightGroup, string> = {
  hour: 't AS hour',
  day: `${DAY_OF('t')} AS day`,
  app: 'app',
  provider: 'provider',
  model: 'model',
  operation: 'operation',
  frontDoor: 'front_door AS front_door',
  deployment: 'deployment',
  tool: 'tool',
};

const REFUSAL_COLUMNS: Record<RefusalGroup, string> = {
  hour: 'hour',
  day: `${DAY_OF('hour')} AS day`,
  app: 'app',
  limit: 'limit_name AS limit_name',
};

interface Source {
  sql: string;
  params: (string | number)[];
}

/**
 * The rollup rows of a range as one subquery with the bucket start as `t`: the whole UTC days
 * inside it from the daily table, the hours at either edge from the hourly one (all of it from
 * the hourly table when hours are asked for, or when the range holds no whole day). A 30-day
 * question then reads about 30 days of daily rows and under 48 hours of hourly ones.
 */
function rollupSource(
  range: { from: number; to: number },
  tables: { hourly: string; daily: string },
  columns: string,
  filters: InsightFilters,
  hourlyOnly: boolean,
): Source {
  const filter = filterClauses(filters);
  const firstDay = Math.ceil(range.from / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(range.to / DAY_MS) * DAY_MS;
  if (hourlyOnly || firstDay >= lastDay) {
    return {
      sql: `SELECT hour AS t, ${columns} FROM ${tables.hourly} WHERE hour >= ? AND hour < ?${filter.sql}`,
      params: [range.from, range.to, ...filter.params],
    };
  }
  return {
    sql: `SELECT hour AS t, ${columns} FROM ${tables.hourly}
        WHERE ((hour >= ? AND hour < ?) OR (hour >= ? AND hour < ?))${filter.sql}
      UNION ALL
      SELECT day AS t, ${columns} FROM ${tables.daily} WHERE day >= ? AND day < ?${filter.sql}`,
    params: [range.from, firstDay, lastDay, range.to, ...filter.params, firstDay, lastDay, ...filter.params],
  };
}

const FILTER_COLUMNS: Record<keyof InsightFilters, string> = {
  app: 'app',
  provider: 'provider',
  model: 'model',
  operation: 'operation',
  frontDoor: 'front_door',
  deployment: 'deployment',
  tool: 'tool',
};

function filterClauses(filters: InsightFilters): Source {
  let sql = '';
  const params: (string | number)[] = [];
  for (const key of Object.keys(FILTER_COLUMNS) as (keyof InsightFilters)[]) {
    const value = filters[key];
    if (value === undefined) continue;
    sql += ` AND ${FILTER_COLUMNS[key]} = ?`;
    params.push(value);
  }
  return { sql, params };
}

/**
 * LedgerInsights over the rollup tables, in SQL that SQLite and PostgreSQL read alike (integer
 * division of BIGINT epoch ms, `?` placeholders renumbered for pg): one implementation, so the
 * engines cannot drift apart in what they answer.
 */
export class SqlLedgerInsights implements LedgerInsights {
  /** Runs the reads (every method but addRefusals). */
  readonly #run: RunSql;
  readonly #write: RunSql;

  /** `write` runs addRefusals' INSERT; by default `run` does (the embedded store reads on another thread). */
  constructor(run: RunSql, write: RunSql = run) {
    this.#run = run;
    this.#write = write;
  }

  async totals(query: InsightTotalsQuery): Promise<InsightTotalsRow[]> {
    const source = rollupSource(
      query,
      { hourly: 'usage_hourly', daily: 'usage_daily' },
      `app, provider, model, operation, front_door, deployment, tool, requests, errors, tokens_in, tokens_out,
        cost_usd, cache_read_tokens, cache_write_tokens, cache_hits, cost_saved_usd`,
      query.filters,
      query.groupBy.includes('hour'),
    );
    const columns = query.groupBy.map((group) => TOTALS_COLUMNS[group]);
    const sums = ['SUM(requests) AS requests', 'SUM(errors) AS errors', 'SUM(tokens_in) AS tokens_in'];
    sums.push('SUM(tokens_out) AS tokens_out', 'SUM(cost_usd) AS cost_usd');
    sums.push('SUM(cache_read_tokens) AS cache_read_tokens', 'SUM(cache_write_tokens) AS cache_write_tokens');
    sums.push('SUM(cache_hits) AS cache_hits', 'SUM(cost_saved_usd) AS cost_saved_usd');
    const sql = `SELECT ${[...columns, ...sums].join(', ')} FROM (${source.sql}) AS r ${groupAndOrder(columns.length)}`;
    const rows = await this.#run(sql, source.params, query.filters.app);
    return rows.map((row) => {
      const result: InsightTotalsRow = {
        requests: Number(row.requests ?? 0),
        errors: Number(row.errors ?? 0),
        tokensIn: Number(row.tokens_in ?? 0),
        tokensOut: Number(row.tokens_out ?? 0),
        costUsd: roundDollars(row.cost_usd as number | null),
        tokensInCacheRead: Number(row.cache_read_tokens ?? 0),
        tokensInCacheWrite: Number(row.cache_write_tokens ?? 0),
        cacheHits: Number(row.cache_hits ?? 0),
        costSavedUsd: roundDollars(row.cost_saved_usd as number | null),
      };
      for (const group of query.groupBy)
        Object.assign(result, {
          [group]: groupValue(group, row[group === 'frontDoor' ? 'front_door' : group]),
        });
      return result;
    });
  }

  async latency(query: LatencyQuery): Promise<LatencyBinRow[]> {
    const source = rollupSource(
      query,
      { hourly: 'usage_latency_hourly', daily: 'usage_latency_daily' },
      'provider, model, bin, requests',
      query.filters,
      query.bucket === 'hour',
    );
    const bucket =
      query.bucket === undefined ? [] : [query.bucket === 'day' ? `${DAY_OF('t')} AS start` : 't AS start'];
    const sql = `SELECT ${[...bucket, 'bin', 'SUM(requests) AS requests'].join(', ')}
      FROM (${source.sql}) AS r ${groupAndOrder(bucket.length + 1)}`;
    const rows = await this.#run(sql, source.params);
    return rows.map((row) => ({
      ...(query.bucket === undefined ? {} : { start: Number(row.start) }),
      bin: Number(row.bin),
      requests: Number(row.requests),
    }));
  }

  async refusals(query: RefusalQuery): Promise<RefusalRow[]> {
    const filter = filterClauses(query.app === undefined ? {} : { app: query.app });
    const columns = query.groupBy.map((group) => REFUSAL_COLUMNS[group]);
    const sql = `SELECT ${[...columns, 'SUM(refusals) AS refusals'].join(', ')}
      FROM limit_refusals_hourly WHERE hour >= ? AND hour < ?${filter.sql} ${groupAndOrder(columns.length)}`;
    const rows = await this.#run(sql, [query.from, query.to, ...filter.params], query.app);
    return rows.map((row) => {
      const result: RefusalRow = { refusals: Number(row.refusals ?? 0) };
      for (const group of query.groupBy) {
        const value = row[group === 'limit' ? 'limit_name' : group];
        Object.assign(result, {
          [group]: group === 'hour' || group === 'day' ? Number(value) : String(value),
        });
      }
      return result;
    });
  }

  async addRefusals(counts: readonly RefusalCount[]): Promise<void> {
    if (counts.length === 0) return;
    const values = counts.map(() => '(?, ?, ?, ?)').join(', ');
    await this.#write(
      `INSERT INTO limit_refusals_hourly AS r (hour, app, limit_name, refusals) VALUES ${values}
       ON CONFLICT (hour, app, limit_name) DO UPDATE SET refusals = r.refusals + excluded.refusals`,
      counts.flatMap((c) => [c.hour, c.app, c.limit, c.refusals]),
    );
  }

  async failures(query: FailureQuery): Promise<FailureRow[]> {
    const clauses = ['status >= 400', 'created_at >= ?', 'created_at < ?'];
    const params: (string | number)[] = [query.from, query.to];
    if (query.app !== undefined) {
      clauses.push('app = ?');
      params.push(query.app);
    }
    const rows = await this.#run(
      `SELECT id, request_id, app, operation, provider, model, status, error_code, latency_ms, created_at
       FROM usage_requests WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`,
      [...params, query.limit],
      query.app,
    );
    return rows.map((row) => ({
      id: String(row.id),
      requestId: String(row.request_id),
      app: String(row.app),
      operation: String(row.operation),
      provider: row.provider === null ? null : String(row.provider),
      model: row.model === null ? null : String(row.model),
      status: Number(row.status),
      errorCode: row.error_code === null ? null : String(row.error_code),
      latencyMs: Number(row.latency_ms),
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * Reads only the rows a guard acted on (migration 014's partial index), one count per distinct
   * `guardrails` value, then counts each `guard:phase:action` item of those values: a request
   * where two guards acted counts once for each.
   */
  async guardrailActions(query: InsightRange): Promise<GuardrailActionRow[]> {
    const rows = await this.#run(
      `SELECT guardrails, COUNT(*) AS requests FROM usage_requests
       WHERE guardrails IS NOT NULL AND created_at >= ? AND created_at < ? GROUP BY guardrails`,
      [query.from, query.to],
    );
    const counts = new Map<string, number>();
    for (const row of rows) {
      const items = new Set(String(row.guardrails).split(','));
      for (const item of items) {
        if (item.split(':').length !== 3) continue;
        counts.set(item, (counts.get(item) ?? 0) + Number(row.requests));
      }
    }
    return [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([item, requests]) => {
        const [guard, phase, action] = item.split(':') as [string, string, string];
        return { guard, phase, action, requests };
      });
  }
}

function groupAndOrder(columns: number): string {
  if (columns === 0) return '';
  const positions = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
  return `GROUP BY ${positions} ORDER BY ${positions}`;
}

const NULLABLE_GROUPS: ReadonlySet<InsightGroup> = new Set(['provider', 'model', 'deployment', 'tool']);

function groupValue(group: InsightGroup, value: unknown): string | number | null {
  if (group === 'hour' || group === 'day') return Number(value);
  // Absent is '' in the rollups' keys.
  if (value === '' && NULLABLE_GROUPS.has(group)) return null;
  return String(value);
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the statements above hold no `?` in literals). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
