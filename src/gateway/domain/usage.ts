import { roundCost } from './pricing.ts';

/** The Usage object of every answer: totals over every upstream attempt of the request. */
export interface ResponseUsage {
  tokensIn: number;
  tokensOut: number;
  estimatedCost: number;
  /** True when any part of the counts was estimated with a tokenizer rather than reported. */
  estimated: boolean;
}

export interface AttemptCost {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  estimated: boolean;
}

export function sumUsage(attempts: readonly AttemptCost[]): ResponseUsage {
  let tokensIn = 0;
  let tokensOut = 0;
  let cost = 0;
  let estimated = false;
  for (const attempt of attempts) {
    tokensIn += attempt.tokensIn;
    tokensOut += attempt.tokensOut;
    cost += attempt.costUsd;
    estimated ||= attempt.estimated;
  }
  return { tokensIn, tokensOut, estimatedCost: roundCost(cost), estimated };
}
