import type { ModelPrice } from '../../config/config-types.ts';
import { priceUsage } from '../domain/pricing.ts';
import type { UsageEstimate } from './app-limiter.ts';

/** Output tokens reserved when a request sets no maxTokens; settled to the actual count afterwards. */
export const DEFAULT_OUTPUT_RESERVATION = 1024;

/**
 * A cheap upper-bound guess of a request's use, for reservations: about four characters per input
 * token (no tokenizer on the hot path), plus the output cap. The actual figures replace it.
 */
export function estimateUsage(inputChars: number, maxOutputTokens: number, price: ModelPrice): UsageEstimate {
  const inputTokens = Math.ceil(inputChars / 4);
  return {
    tokens: inputTokens + maxOutputTokens,
    costUsd: priceUsage({ inputTokens, outputTokens: maxOutputTokens }, price),
  };
}

export function countChars(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += text.length;
  return total;
}
