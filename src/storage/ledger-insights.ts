/**
 * The ledger seen from above, for the admin API and the dashboard: every app at once, read from
 * the hourly rollups that the ledger's trigger keeps (migration 005), so a month over a million
 * requests costs a few hundred rollup rows. Times are epoch ms on whole hours (the rollups'
 * grain); callers round a range outwards before asking.
 */

/** `deployment`: a slot's deployment (CONTRACT 5.6); `tool`: an MCP call's `server__tool` (5.7). */
export type InsightGroup =
  | 'hour'
  | 'day'
  | 'app'
  | 'provider'
  | 'model'
  | 'operation'
  | 'frontDoor'
  | 'deployment'
  | 'tool';

export interface InsightFilters {
  app?: string;
  provider?: string;
  model?: string;
  operation?: string;
  /** `native`, `openai`, `anthropic` or `responses`: the door the request came in by. */
  frontDoor?: string;
  deployment?: string;
  tool?: string;
}

export interface InsightRange {
  /** Epoch ms on a whole hour, inclusive. */
  from: number;
  /** Epoch ms on a whole hour, exclusive. */
  to: number;
}

export interface InsightTotalsQuery extends InsightRange {
  groupBy: readonly InsightGroup[];
  filters: InsightFilters;
}

/** Totals of one group; the grouping fields present are those asked for (`hour`, `day`: the bucket's start, epoch ms). */
export interface InsightTotalsRow {
  hour?: number;
  day?: number;
  app?: string;
  provider?: string | null;
  model?: string | null;
  operation?: string;
  frontDoor?: string;
  deployment?: string | null;
  tool?: string | null;
  requests: number;
  errors: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** Prompt-cache reads and writes, part of `tokensIn` (CONTRACT 5.3). */
  tokensInCacheRead: number;
  tokensInCacheWrite: number;
  /** Answers from the response cache, and what they would have cost (CONTRACT 5.5). */
  cacheHits: number;
  costSavedUsd: number;
}

export type TimeBucket = 'hour' | 'day';

export interface LatencyQuery extends InsightRange {
  /** Undefined: one histogram for the whole range. */
  bucket: TimeBucket | undefined;
  /** The histogram is kept per provider and model, not per app. */
  filters: Pick<InsightFilters, 'provider' | 'model'>;
}

/** How many requests of a bucket fell in latency bin `bin` (`floor(ln(1 + ms) * LATENCY_BINS_PER_E)`). */
export interface LatencyBinRow {
  /** The time bucket's start, epoch ms; absent when no bucket was asked for. */
  start?: number;
  bin: number;
  requests: number;
}

/** Bins per factor of e in the latency histogram: the rollup's `ln(1 + ms) * 8`. */
export const LATENCY_BINS_PER_E = 8;

export type RefusalGroup = 'hour' | 'day' | 'app' | 'limit';

export interface RefusalQuery extends InsightRange {
  groupBy: readonly RefusalGroup[];
  app?: string;
}

export interface RefusalRow {
  hour?: number;
  day?: number;
  app?: string;
  limit?: string;
  refusals: number;
}

/** Refusals counted in one process, added to the stored count of their hour. */
export interface RefusalCount {
  hour: number;
  app: string;
  limit: string;
  refusals: number;
}

export interface FailureQuery extends InsightRange {
  app?: string;
  limit: number;
}

/** A failed request (status 400 or more), as the ledger recorded it. */
export interface FailureRow {
  id: string;
  requestId: string;
  app: string;
  operation: string;
  provider: string | null;
  model: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  createdAt: number;
}

/** How many requests of a range one guard's action touched (CONTRACT 6.6), from the ledger's `guardrails`. */
export interface GuardrailActionRow {
  guard: string;
  /** `input`, `output` or the MCP phases, as the guard recorded it. */
  phase: string;
  /** `block`, `mask`, `flag`…: what the guard did, never what it matched. */
  action: string;
  requests: number;
}

export interface LedgerInsights {
  /** Sums per group, ordered by the grouping fields. */
  totals(query: InsightTotalsQuery): Promise<InsightTotalsRow[]>;
  /** The latency histogram, per time bucket when asked, ordered by bucket and bin. */
  latency(query: LatencyQuery): Promise<LatencyBinRow[]>;
  /** Limit refusals per group, ordered by the grouping fields. */
  refusals(query: RefusalQuery): Promise<RefusalRow[]>;
  /** Adds counted refusals to the stored ones (several instances add to the same hour). */
  addRefusals(counts: readonly RefusalCount[]): Promise<void>;
  /** The newest failed requests first. */
  failures(query: FailureQuery): Promise<FailureRow[]>;
  /** Requests per guard, phase and action in a range, ordered by those three. */
  guardrailActions(query: InsightRange): Promise<GuardrailActionRow[]>;
}
