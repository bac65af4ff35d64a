import type { PlannedCandidate } from '../domain/routing.ts';
import type { UsageEstimate } from '../limits/app-limiter.ts';
import { countChars, DEFAULT_OUTPUT_RESERVATION, estimateUsage } from '../limits/estimate-usage.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { AdmissionInput } from './request-run-inputs.ts';

const NO_USAGE: UsageEstimate = Object.freeze({ tokens: 0, costUsd: 0 });

/**
 * What a run reserves of its app's limits: its texts and output cap priced at the first
 * candidate's rates. A run without candidates calls no model (an MCP tool call): one request,
 * no tokens, no cost.
 */
export function estimateAdmission(
  deps: GatewayDeps,
  first: PlannedCandidate | undefined,
  input: AdmissionInput,
): UsageEstimate {
  if (first === undefined) return NO_USAGE;
  const { price } = deps.priceBook.resolve(deps.registry.adapter(first.provider).kind, first.model);
  const texts = typeof input.texts === 'function' ? input.texts() : input.texts;
  return estimateUsage(countChars(texts), input.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION, price);
}
