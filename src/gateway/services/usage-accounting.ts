import { roundMs } from '../../platform/clock.ts';
import { priceUsage } from '../domain/pricing.ts';
import type { ProviderAdapter, ReportedUsage } from '../providers/provider.ts';
import type { Outcome } from './finish-request.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { RequestScope } from './request-scope.ts';

export interface AnsweredCall {
  provider: string;
  adapter: ProviderAdapter;
  /** The model the upstream reported (priced), else the one asked for. */
  model: string;
  /** Undefined when the upstream reported nothing: `estimate` is used and marked as such. */
  reported: ReportedUsage | undefined;
  estimate: () => Promise<ReportedUsage>;
  /** Monotonic ms when the call started. */
  startedAt: number;
  outcome?: string;
}

/**
 * Prices an answered upstream call, appends it to the request's attempts and notes on the
 * outcome which provider, model and price source served the request.
 */
export async function accountAnsweredCall(
  deps: GatewayDeps,
  scope: RequestScope,
  call: AnsweredCall,
  outcome: Outcome,
): Promise<void> {
  const doneAt = deps.clock.monotonic();
  const usage = call.reported ?? (await call.estimate());
  const { price, source } = deps.priceBook.resolve(call.adapter.kind, call.model);
  scope.attempts.push({
    attempt: scope.attempts.length,
    provider: call.provider,
    model: call.model,
    tokensIn: usage.inputTokens,
    tokensOut: usage.outputTokens,
    usageEstimated: call.reported === undefined,
    costUsd: priceUsage(usage, price),
    latencyMs: roundMs(doneAt - call.startedAt),
    outcome: call.outcome ?? 'ok',
    upstreamStatus: 200,
  });
  outcome.provider = call.provider;
  outcome.model = call.model;
  outcome.priceSource = source;
}
