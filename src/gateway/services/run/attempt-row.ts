import { ApiError } from '../../../platform/errors.ts';
import type { CacheTokens, UsageAttempt } from '../../../storage/ports.ts';
import { MAX_MODEL_NAME_LENGTH } from '../../domain/model-addressing.ts';
import { NO_CACHE_TOKENS, type ReportedUsage, splitCacheTokens } from '../../domain/reported-usage.ts';
import { type ResponseUsage, sumUsage } from '../../domain/usage.ts';

/** What a run knows of one upstream call when it keeps it as an attempt. */
export interface AttemptFields {
  provider: string;
  model: string;
  /** What the call used; none for a call that failed. */
  usage?: ReportedUsage;
  usageEstimated?: boolean;
  costUsd?: number;
  latencyMs: number;
  /** `ok`, or the error code the attempt ended with. */
  outcome: string;
  upstreamStatus: number | null;
  /** The slot's deployment that took the call (CONTRACT 5.6), null for a slot of one. */
  deployment: string | null;
}

/**
 * An attempt row of the ledger: a failed call has no tokens and no cost. The prompt-cache tokens
 * are those the upstream reported; an estimate has none (a tokenizer knows nothing of the cache).
 */
export function attemptRow(index: number, fields: AttemptFields): UsageAttempt {
  const usage = fields.usage;
  const reported = usage !== undefined && fields.usageEstimated !== true;
  const cache = reported ? splitCacheTokens(usage) : NO_CACHE_TOKENS;
  const row: UsageAttempt = {
    attempt: index,
    provider: fields.provider,
    model: boundedName(fields.model),
    tokensIn: usage?.inputTokens ?? 0,
    tokensOut: usage?.outputTokens ?? 0,
    usageEstimated: fields.usageEstimated ?? false,
    costUsd: fields.costUsd ?? 0,
    latencyMs: fields.latencyMs,
    outcome: fields.outcome,
    upstreamStatus: fields.upstreamStatus,
    cacheReadTokens: cache.cacheReadTokens,
    cacheWrite5mTokens: cache.cacheWrite5mTokens,
    cacheWrite1hTokens: cache.cacheWrite1hTokens,
    deployment: fields.deployment,
  };
  // Reasoning is part of the output; never more of it than the output it is part of.
  const reasoning = reported ? Math.min(usage.reasoningTokens ?? 0, usage.outputTokens) : 0;
  if (reasoning > 0) row.reasoningTokens = reasoning;
  return row;
}

/** A request's prompt-cache tokens: those of every attempt, as its `tokensIn` is theirs. */
export function sumCacheTokens(attempts: readonly UsageAttempt[]): CacheTokens {
  const sum: CacheTokens = { cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 };
  for (const attempt of attempts) {
    sum.cacheReadTokens += attempt.cacheReadTokens;
    sum.cacheWrite5mTokens += attempt.cacheWrite5mTokens;
    sum.cacheWrite1hTokens += attempt.cacheWrite1hTokens;
  }
  return sum;
}

/** Usage over every attempt, as the answer reports it. */
export function usageOfAttempts(attempts: readonly UsageAttempt[]): ResponseUsage {
  return sumUsage(
    attempts.map((a) => ({
      tokensIn: a.tokensIn,
      tokensOut: a.tokensOut,
      costUsd: a.costUsd,
      estimated: a.usageEstimated,
      cacheReadTokens: a.cacheReadTokens,
      cacheWrite5mTokens: a.cacheWrite5mTokens,
      cacheWrite1hTokens: a.cacheWrite1hTokens,
      reasoningTokens: a.reasoningTokens ?? 0,
    })),
  );
}

export function statusOf(error: unknown): { status: number; code: string | null } {
  if (error === undefined) return { status: 200, code: null };
  if (error instanceof ApiError) return { status: error.statusCode, code: error.code };
  return { status: 500, code: 'internal_error' };
}

/**
 * A name as the ledger keeps it: at most MAX_MODEL_NAME_LENGTH characters. The doors and the native
 * schemas bound what clients send; this bounds what an upstream reports, as the ledger's rollups
 * key on the model (a long key slows every later insert into them; PostgreSQL refuses an index
 * entry past about 2.7 kB, which would fail the batch for good).
 */
export function boundedName(name: string): string {
  return name.length <= MAX_MODEL_NAME_LENGTH ? name : name.slice(0, MAX_MODEL_NAME_LENGTH);
}
