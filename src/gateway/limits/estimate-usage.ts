import type { ModelPrice } from '../../config/config-types.ts';
import { priceUsage } from '../domain/pricing.ts';
import type { UsageEstimate } from './app-limiter.ts';

/** Output tokens reserved when a request sets no maxTokens; settled to the actual count afterwards. */
export const DEFAULT_OUTPUT_RESERVATION = 1024;

/** Characters per token in a guess without the tokenizer (about right for English prose). */
const CHARS_PER_TOKEN = 4;

/** Tokens of `texts` guessed from their length: the reservations' rule, and the tokenizer's stand-in. */
export function guessTokens(texts: readonly string[]): number {
  return Math.ceil(countChars(texts) / CHARS_PER_TOKEN);
}

/**
 * A cheap upper-bound guess of a request's use, for reservations: about four characters per input
 * token (no tokenizer on the hot path), the images' and PDFs' tokens, plus the output cap. The actual figures replace it.
 */
export function estimateUsage(
  inputChars: number,
  mediaTokens: number,
  maxOutputTokens: number,
  price: ModelPrice,
): UsageEstimate {
  const inputTokens = Math.ceil(inputChars / CHARS_PER_TOKEN) + mediaTokens;
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
