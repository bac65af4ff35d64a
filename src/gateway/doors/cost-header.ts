import type { ResponseUsage } from '../domain/usage.ts';

/**
 * The header carrying an answer's cost on the compatible doors, whose vendors' bodies have no
 * field for it (CONTRACT 4.2; a stream carries `cost_usd` in its usage instead).
 */
export const COST_HEADER = 'x-gateway-cost-usd';

/** The cost header of a non-streamed answer (OpenAI's body has no field for it; CONTRACT 4.2). */
export function costHeader(usage: ResponseUsage): Record<string, string> {
  return costHeaderOf(usage.estimatedCost);
}

/**
 * The cost header for a cost in US dollars. The name is written out rather than computed
 * (`{ [COST_HEADER]: … }`), which V8 defines through its runtime on every answer; `satisfies`
 * keeps it COST_HEADER's.
 */
export function costHeaderOf(usd: number): Record<string, string> {
  return { 'x-gateway-cost-usd': formatUsd(usd) } satisfies Record<typeof COST_HEADER, string>;
}

/**
 * US dollars in plain decimals, to the ten places costs are rounded to (the cost header's, and the
 * response cache's saved cost): `String()` would write a cost under a millionth of a dollar as
 * `3e-8`, which header parsers that expect a decimal misread.
 */
export function formatUsd(usd: number): string {
  return usd.toFixed(10).replace(/\.?0+$/, '');
}
