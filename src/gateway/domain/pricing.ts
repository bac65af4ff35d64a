import type { ModelPrice } from '../../config/config-types.ts';
import type { ReportedUsage } from './reported-usage.ts';

const PER_MILLION = 1_000_000;

/**
 * The US-dollar cost of one upstream answer. Cached input tokens are part of `inputTokens`
 * and are charged at the cache rates where the model has them.
 */
export function priceUsage(usage: ReportedUsage, price: ModelPrice): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const cost =
    uncached * price.inputPerMTok +
    cacheRead * (price.cacheReadPerMTok ?? price.inputPerMTok) +
    cacheWrite * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    usage.outputTokens * price.outputPerMTok;
  return roundCost(cost / PER_MILLION);
}

/** Dollars to 1e-10: past that, digits are floating-point noise, not money. */
export function roundCost(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}
