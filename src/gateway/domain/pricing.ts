import type { ModelPrice } from '../../config/config-types.ts';
import { type ReportedUsage, splitCacheTokens } from './reported-usage.ts';

const PER_MILLION = 1_000_000;
/** Anthropic's 1-hour cache writes cost twice the input rate: the rate where a price has none. */
const ONE_HOUR_WRITE_TIMES_INPUT = 2;

/**
 * The US-dollar cost of one upstream answer. The prompt-cache tokens are part of `inputTokens`;
 * each part is charged at its own rate (CONTRACT 5.3): cache reads at the read rate, 5-minute
 * writes at the write rate (both the input rate where the model has none, as the price data
 * does), 1-hour writes at the 1-hour rate (twice the input rate where the model has none), the
 * rest of the input at the input rate.
 */
export function priceUsage(usage: ReportedUsage, price: ModelPrice): number {
  const cache = splitCacheTokens(usage);
  const uncached =
    usage.inputTokens - cache.cacheReadTokens - cache.cacheWrite5mTokens - cache.cacheWrite1hTokens;
  const cost =
    uncached * price.inputPerMTok +
    cache.cacheReadTokens * (price.cacheReadPerMTok ?? price.inputPerMTok) +
    cache.cacheWrite5mTokens * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    cache.cacheWrite1hTokens *
      (price.cacheWrite1hPerMTok ?? price.inputPerMTok * ONE_HOUR_WRITE_TIMES_INPUT) +
    usage.outputTokens * price.outputPerMTok;
  return roundCost(cost / PER_MILLION);
}

/** Dollars to 1e-10: past that, digits are floating-point noise, not money. */
export function roundCost(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}
