import type { Operation, UsageAttempt, UsageGroup, UsageRecord, UsageTotalsRow } from './ports.ts';

/** Rows of usage_requests and usage_attempts as SQL engines return them (BIGINT may come back as a string). */
export interface RequestRow {
  id: string;
  request_id: string;
  app: string;
  operation: string;
  front_door: string;
  task: string | null;
  provider: string | null;
  model: string | null;
  tokens_in: number | string;
  tokens_out: number | string;
  usage_estimated: number;
  cost_usd: number;
  price_source: string | null;
  latency_ms: number;
  upstream_first_byte_ms: number | null;
  upstream_ms: number | null;
  status: number;
  error_code: string | null;
  created_at: number | string;
  cache_read_tokens: number | string;
  cache_write_5m_tokens: number | string;
  cache_write_1h_tokens: number | string;
  cache_hit: number;
  cost_saved_usd: number;
  deployment: string | null;
  mcp_server: string | null;
  mcp_tool: string | null;
  end_user?: string | null;
  team?: string | null;
  guardrails?: string | null;
  batch_id?: string | null;
  client_model?: string | null;
}

export interface AttemptRow {
  usage_id?: string;
  attempt: number;
  provider: string;
  model: string;
  tokens_in: number | string;
  tokens_out: number | string;
  usage_estimated: number;
  cost_usd: number;
  latency_ms: number;
  outcome: string;
  upstream_status: number | null;
  cache_read_tokens: number | string;
  cache_write_5m_tokens: number | string;
  cache_write_1h_tokens: number | string;
  deployment: string | null;
}

export const REQUEST_COLUMNS = [
  'id',
  'request_id',
  'app',
  'operation',
  'task',
  'provider',
  'model',
  'tokens_in',
  'tokens_out',
  'usage_estimated',
  'cost_usd',
  'price_source',
  'latency_ms',
  'upstream_first_byte_ms',
  'upstream_ms',
  'status',
  'error_code',
  'created_at',
  'front_door',
  'cache_read_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'cache_hit',
  'cost_saved_usd',
  'deployment',
  'mcp_server',
  'mcp_tool',
  'end_user',
  'team',
  'guardrails',
  'batch_id',
  'client_model',
] as const;

export const ATTEMPT_COLUMNS = [
  'usage_id',
  'attempt',
  'provider',
  'model',
  'tokens_in',
  'tokens_out',
  'usage_estimated',
  'cost_usd',
  'latency_ms',
  'outcome',
  'upstream_status',
  'cache_read_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'deployment',
] as const;

export type SqlValue = string | number | null;

export function requestValues(r: UsageRecord): SqlValue[] {
  const values: SqlValue[] = [];
  pushRequestValues(r, values);
  return values;
}

export function attemptValues(usageId: string, a: UsageAttempt): SqlValue[] {
  const values: SqlValue[] = [];
  pushAttemptValues(usageId, a, values);
  return values;
}

/**
 * Appends a usage row's values, in REQUEST_COLUMNS' order, to `into` (the embedded ledger's flat
 * batch): one push of every value, with no array per row in between.
 */
export function pushRequestValues(r: UsageRecord, into: SqlValue[]): void {
  into.push(
    r.id,
    r.requestId,
    r.app,
    r.operation,
    r.task,
    r.provider,
    r.model,
    r.tokensIn,
    r.tokensOut,
    r.usageEstimated ? 1 : 0,
    r.costUsd,
    r.priceSource,
    r.latencyMs,
    r.upstreamFirstByteMs,
    r.upstreamMs,
    r.status,
    r.errorCode,
    r.createdAt,
    r.frontDoor,
    r.cacheReadTokens,
    r.cacheWrite5mTokens,
    r.cacheWrite1hTokens,
    r.cacheHit ? 1 : 0,
    r.costSavedUsd,
    r.deployment,
    r.mcpServer,
    r.mcpTool,
    r.endUser ?? null,
    r.team ?? null,
    r.guardrails,
    r.batchId ?? null,
    r.clientModel ?? null,
  );
}

/** Appends an attempt row's values, in ATTEMPT_COLUMNS' order, as pushRequestValues does. */
export function pushAttemptValues(usageId: string, a: UsageAttempt, into: SqlValue[]): void {
  into.push(
    usageId,
    a.attempt,
    a.provider,
    a.model,
    a.tokensIn,
    a.tokensOut,
    a.usageEstimated ? 1 : 0,
    a.costUsd,
    a.latencyMs,
    a.outcome,
    a.upstreamStatus,
    a.cacheReadTokens,
    a.cacheWrite5mTokens,
    a.cacheWrite1hTokens,
    a.deployment,
  );
}

export function toAttempt(row: AttemptRow): UsageAttempt {
  return {
    attempt: Number(row.attempt),
    provider: row.provider,
    model: row.model,
    tokensIn: Number(row.tokens_in),
    tokensOut: Number(row.tokens_out),
    usageEstimated: Boolean(Number(row.usage_estimated)),
    costUsd: Number(row.cost_usd),
    latencyMs: Number(row.latency_ms),
    outcome: row.outcome,
    upstreamStatus: row.upstream_status === null ? null : Number(row.upstream_status),
    cacheReadTokens: Number(row.cache_read_tokens ?? 0),
    cacheWrite5mTokens: Number(row.cache_write_5m_tokens ?? 0),
    cacheWrite1hTokens: Number(row.cache_write_1h_tokens ?? 0),
    deployment: row.deployment ?? null,
  };
}

const numberOrNull = (value: number | null): number | null => (value === null ? null : Number(value));

export function toRecord(row: RequestRow, attempts: readonly AttemptRow[]): UsageRecord {
  return {
    id: row.id,
    requestId: row.request_id,
    app: row.app,
    operation: row.operation as Operation,
    frontDoor: row.front_door,
    task: row.task,
    provider: row.provider,
    model: row.model,
    tokensIn: Number(row.tokens_in),
    tokensOut: Number(row.tokens_out),
    usageEstimated: Boolean(Number(row.usage_estimated)),
    costUsd: Number(row.cost_usd),
    priceSource: row.price_source,
    latencyMs: Number(row.latency_ms),
    upstreamFirstByteMs: numberOrNull(row.upstream_first_byte_ms),
    upstreamMs: numberOrNull(row.upstream_ms),
    status: Number(row.status),
    errorCode: row.error_code,
    createdAt: Number(row.created_at),
    cacheReadTokens: Number(row.cache_read_tokens ?? 0),
    cacheWrite5mTokens: Number(row.cache_write_5m_tokens ?? 0),
    cacheWrite1hTokens: Number(row.cache_write_1h_tokens ?? 0),
    deployment: row.deployment ?? null,
    cacheHit: Boolean(Number(row.cache_hit ?? 0)),
    costSavedUsd: Number(row.cost_saved_usd ?? 0),
    mcpServer: row.mcp_server ?? null,
    mcpTool: row.mcp_tool ?? null,
    // Present only when set: rows of requests that named no end user or team read as before 009.
    ...(row.end_user == null ? {} : { endUser: row.end_user }),
    ...(row.team == null ? {} : { team: row.team }),
    guardrails: row.guardrails ?? null,
    ...(row.batch_id === null || row.batch_id === undefined ? {} : { batchId: row.batch_id }),
    ...(row.client_model == null ? {} : { clientModel: row.client_model }),
    attempts: attempts.map(toAttempt),
  };
}

export interface TotalsRowRaw {
  day?: string;
  provider?: string | null;
  model?: string | null;
  operation?: string;
  front_door?: string;
  deployment?: string | null;
  tool?: string | null;
  end_user?: string | null;
  batch_id?: string | null;
  requests: number | string;
  errors: number | string;
  tokens_in: number | string | null;
  tokens_out: number | string | null;
  cost_usd: number | string | null;
  cache_read_tokens: number | string | null;
  cache_write_tokens: number | string | null;
  cache_hits: number | string | null;
  cost_saved_usd: number | string | null;
}

export function toTotalsRow(row: TotalsRowRaw, groupBy: readonly UsageGroup[]): UsageTotalsRow {
  const result: UsageTotalsRow = {
    requests: Number(row.requests),
    errors: Number(row.errors),
    tokensIn: Number(row.tokens_in ?? 0),
    tokensOut: Number(row.tokens_out ?? 0),
    costUsd: roundDollars(row.cost_usd),
    tokensInCacheRead: Number(row.cache_read_tokens ?? 0),
    tokensInCacheWrite: Number(row.cache_write_tokens ?? 0),
    cacheHits: Number(row.cache_hits ?? 0),
    costSavedUsd: roundDollars(row.cost_saved_usd),
  };
  for (const group of groupBy) {
    (result as unknown as Record<string, unknown>)[group] = row[GROUP_COLUMNS[group]] ?? null;
  }
  return result;
}

/** The column each group reads (`day` is computed, under that name). */
const GROUP_COLUMNS = {
  day: 'day',
  provider: 'provider',
  model: 'model',
  operation: 'operation',
  frontDoor: 'front_door',
  deployment: 'deployment',
  tool: 'tool',
  endUser: 'end_user',
  batch: 'batch_id',
} as const satisfies Record<UsageGroup, keyof TotalsRowRaw>;

/** An MCP call's `server__tool`, as the rollups name it; null for any other row. */
const TOOL_EXPRESSION = "mcp_server || '__' || mcp_tool";

/** A sum of binary-float dollars, rounded to the 1e-10 dollars that pricing itself keeps. */
export function roundDollars(value: number | string | null | undefined): number {
  return Math.round(Number(value ?? 0) * 1e10) / 1e10;
}

/** SELECT list and GROUP BY of a totals query, given how the engine turns epoch ms into a UTC date. */
export function totalsSql(
  groupBy: readonly UsageGroup[],
  dayExpression: string,
): { select: string; group: string } {
  const columns = groupBy.map((group) =>
    group === 'day'
      ? `${dayExpression} AS day`
      : group === 'tool'
        ? `${TOOL_EXPRESSION} AS tool`
        : GROUP_COLUMNS[group],
  );
  const select = [
    ...columns,
    'COUNT(*) AS requests',
    'SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors',
    'SUM(tokens_in) AS tokens_in',
    'SUM(tokens_out) AS tokens_out',
    'SUM(cost_usd) AS cost_usd',
    'SUM(cache_read_tokens) AS cache_read_tokens',
    'SUM(cache_write_5m_tokens + cache_write_1h_tokens) AS cache_write_tokens',
    'SUM(cache_hit) AS cache_hits',
    'SUM(cost_saved_usd) AS cost_saved_usd',
  ].join(', ');
  const group =
    groupBy.length === 0
      ? ''
      : `GROUP BY ${groupBy.map((_, i) => i + 1).join(', ')} ORDER BY ${groupBy.map((_, i) => i + 1).join(', ')}`;
  return { select, group };
}
