import { roundCost } from './pricing.ts';
import type { PromptCacheTokens } from './reported-usage.ts';

/** The Usage object of every answer: totals over every upstream attempt of the request. */
export interface ResponseUsage {
  tokensIn: number;
  tokensOut: number;
  estimatedCost: number;
  /** True when any part of the counts was estimated with a tokenizer rather than reported. */
  estimated: boolean;
  /** Prompt-cache reads, part of `tokensIn` (CONTRACT 5.3). */
  tokensInCacheRead: number;
  /** Prompt-cache writes, 5-minute and 1-hour together, part of `tokensIn`. */
  tokensInCacheWrite: number;
  /**
   * Of `tokensInCacheWrite`, the 1-hour writes. Not a field of the native Usage: the Anthropic
   * door reports the split (`cache_creation`).
   */
  tokensInCacheWrite1h: number;
  /**
   * Of `tokensOut`, the reasoning tokens the upstreams reported, where there were some (CONTRACT
   * 5.4: the Responses door's `output_tokens_details.reasoning_tokens`); absent when none. Not a
   * field of the native Usage.
   */
  tokensOutReasoning?: number;
}

export interface AttemptCost extends PromptCacheTokens {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  estimated: boolean;
  /** Of `tokensOut`, the reported reasoning tokens (0 or absent: none). */
  reasoningTokens?: number;
}

export function sumUsage(attempts: readonly AttemptCost[]): ResponseUsage {
  let tokensIn = 0;
  let tokensOut = 0;
  let cost = 0;
  let estimated = false;
  let cacheRead = 0;
  let cacheWrite5m = 0;
  let cacheWrite1h = 0;
  let reasoning = 0;
  for (const attempt of attempts) {
    reasoning += attempt.reasoningTokens ?? 0;
    tokensIn += attempt.tokensIn;
    tokensOut += attempt.tokensOut;
    cost += attempt.costUsd;
    estimated ||= attempt.estimated;
    cacheRead += attempt.cacheReadTokens;
    cacheWrite5m += attempt.cacheWrite5mTokens;
    cacheWrite1h += attempt.cacheWrite1hTokens;
  }
  const usage: ResponseUsage = {
    tokensIn,
    tokensOut,
    estimatedCost: roundCost(cost),
    estimated,
    tokensInCacheRead: cacheRead,
    tokensInCacheWrite: cacheWrite5m + cacheWrite1h,
    tokensInCacheWrite1h: cacheWrite1h,
  };
  if (reasoning > 0) usage.tokensOutReasoning = reasoning;
  return usage;
}

/** The cache fields of a usage without prompt-cache tokens. */
export const NO_CACHE_USAGE = Object.freeze({
  tokensInCacheRead: 0,
  tokensInCacheWrite: 0,
  tokensInCacheWrite1h: 0,
});
