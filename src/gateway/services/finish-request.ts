import { roundMs } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { UsageRecord } from '../../storage/ports.ts';
import { type ResponseUsage, sumUsage } from '../domain/usage.ts';
import { CLIENT_CLOSED_STATUS, ClientClosedError } from './client-closed-error.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { RequestScope } from './request-scope.ts';

export interface Outcome {
  provider: string | null;
  model: string | null;
  priceSource: string | null;
  /** Undefined for success. */
  error?: unknown;
}

/** Usage over every attempt of the request, as the response reports it. */
export function scopeUsage(scope: RequestScope): ResponseUsage {
  return sumUsage(
    scope.attempts.map((a) => ({
      tokensIn: a.tokensIn,
      tokensOut: a.tokensOut,
      costUsd: a.costUsd,
      estimated: a.usageEstimated,
    })),
  );
}

export function elapsedMs(deps: GatewayDeps, scope: RequestScope): number {
  return roundMs(deps.clock.monotonic() - scope.startedAt);
}

/** Hands the request's ledger record to the recorder: one row, with every upstream attempt. */
export function recordRequest(
  deps: GatewayDeps,
  scope: RequestScope,
  outcome: Outcome,
  latencyMs: number,
): void {
  const usage = scopeUsage(scope);
  const { status, code } = statusOf(outcome.error);
  const record: UsageRecord = {
    id: scope.id,
    requestId: scope.requestId,
    app: scope.app,
    operation: scope.operation,
    task: scope.task ?? null,
    provider: outcome.provider,
    model: outcome.model,
    tokensIn: usage.tokensIn,
    tokensOut: usage.tokensOut,
    usageEstimated: usage.estimated,
    costUsd: usage.estimatedCost,
    priceSource: outcome.priceSource,
    latencyMs,
    upstreamFirstByteMs:
      scope.upstreamFirstByteAt === undefined ? null : roundMs(scope.upstreamFirstByteAt - scope.startedAt),
    upstreamMs: scope.upstreamDoneAt === undefined ? null : roundMs(scope.upstreamDoneAt - scope.startedAt),
    status,
    errorCode: code,
    createdAt: scope.receivedAt,
    attempts: scope.attempts,
  };
  deps.recorder.record(record);
  // The limit stores do not reject (Redis failures fall back to local counting), but a settlement is
  // fire-and-forget: should one ever reject, it must not become an unhandled rejection that ends the
  // process. A lost settlement leaves its reservation standing until the window (or the lease) ends.
  scope.admission
    ?.settle({ tokens: usage.tokensIn + usage.tokensOut, costUsd: usage.estimatedCost })
    .catch(() => {});
}

function statusOf(error: unknown): { status: number; code: string | null } {
  if (error === undefined) return { status: 200, code: null };
  if (error instanceof ClientClosedError) return { status: CLIENT_CLOSED_STATUS, code: 'client_closed' };
  if (error instanceof ApiError) return { status: error.statusCode, code: error.code };
  return { status: 500, code: 'internal_error' };
}

/** Runs a request's work and records it in the ledger whatever happens: answer, error or disconnect. */
export async function withRecording<T>(
  deps: GatewayDeps,
  scope: RequestScope,
  work: (outcome: Outcome) => Promise<T>,
): Promise<T> {
  const outcome: Outcome = { provider: null, model: null, priceSource: null };
  try {
    return await work(outcome);
  } catch (error) {
    outcome.error = error;
    throw error;
  } finally {
    recordRequest(deps, scope, outcome, elapsedMs(deps, scope));
  }
}
