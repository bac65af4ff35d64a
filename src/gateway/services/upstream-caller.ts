import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderSlot, RetrySettings } from '../../config/config-types.ts';
import type { Clock } from '../../platform/clock.ts';
import { roundMs } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { ProviderHealth } from '../../storage/provider-health.ts';
import { decideRetry } from '../domain/retry-policy.ts';
import type { PlannedCandidate } from '../domain/routing.ts';
import { withTraceHeaders } from '../providers/http/trace-headers.ts';
import type { CallContext, ProviderAdapter } from '../providers/provider.ts';
import { isProviderError } from '../providers/provider-error.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { ClientClosedError } from './client-closed-error.ts';
import type { RunMetrics } from './run-metrics.ts';
import type { RunTrace } from './run-trace.ts';
import { type FailedCall, toGatewayError } from './upstream-error-mapping.ts';

export interface CallSuccess<T> {
  value: T;
  candidate: PlannedCandidate;
  adapter: ProviderAdapter;
  /** Monotonic ms when this successful call started. */
  startedAt: number;
}

export type Invoke<T> = (
  adapter: ProviderAdapter,
  candidate: PlannedCandidate,
  context: CallContext,
) => Promise<T>;

/** What the caller needs of the request it serves (the request run). */
export interface CallScope {
  readonly requestId: string;
  /** Monotonic ms when the request reached the gateway: the retry budget counts from here. */
  readonly startedAt: number;
  readonly signal: AbortSignal;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** The request's trace (a span per call); undefined when tracing is off. */
  readonly trace: RunTrace | undefined;
  /** The `attempt` number of the next call to `slot`, counting it. */
  takeAttemptNumber(slot: PlannedCandidate['provider']): number;
  /** Keeps a failed call among the request's attempts. */
  recordFailedCall(
    candidate: PlannedCandidate,
    latencyMs: number,
    outcome: string,
    upstreamStatus: number | null,
  ): void;
}

export interface UpstreamCallerDeps {
  registry: ProviderRegistry;
  retry: RetrySettings;
  clock: Clock;
  health: ProviderHealth;
  random?: () => number;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of candidates skipped for an open circuit (calls are counted from the ledger record). */
  metrics?: Pick<RunMetrics, 'skipped'> | undefined;
}

/**
 * Calls the planned candidates in order until one answers: a retryable failure is retried on the
 * same candidate with backoff, then the next candidate is tried; a non-retryable one ends the
 * request at once. All of it stays within the retry budget. Every failed call is kept on the scope.
 * "Answered" is whatever `invoke` resolves with: for a stream, its first event, so a provider is
 * never switched once a byte may have reached the client.
 */
export class UpstreamCaller {
  readonly #deps: Required<Omit<UpstreamCallerDeps, 'metrics'>>;
  readonly #metrics: Pick<RunMetrics, 'skipped'> | undefined;

  constructor(deps: UpstreamCallerDeps) {
    this.#metrics = deps.metrics;
    this.#deps = {
      random: Math.random,
      wait: (ms, signal) => sleep(ms, undefined, { signal }),
      ...deps,
    };
  }

  async call<T>(
    candidates: readonly PlannedCandidate[],
    scope: CallScope,
    invoke: Invoke<T>,
  ): Promise<CallSuccess<T>> {
    const { registry, retry, clock } = this.#deps;
    const deadline = scope.startedAt + retry.budgetMs;
    const { health } = this.#deps;
    const failures: FailedCall[] = [];
    let last: unknown;
    for (const candidate of candidates) {
      const adapter = registry.adapter(candidate.provider);
      for (let retries = 0; ; retries++) {
        if (scope.signal.aborted) throw new ClientClosedError();
        if (!health.tryAcquire(candidate.provider, clock.now())) {
          // The circuit is open: skip this candidate without calling it.
          this.#metrics?.skipped(candidate.provider);
          failures.push({
            provider: candidate.provider,
            model: candidate.model,
            status: null,
            failure: 'circuit_open',
          });
          break;
        }
        const attempt = scope.takeAttemptNumber(candidate.provider);
        const startedAt = clock.monotonic();
        const trace = scope.trace;
        try {
          const context = {
            signal: scope.signal,
            requestId: scope.requestId,
            attempt,
            metadata: scope.metadata,
          };
          const value =
            trace === undefined
              ? await invoke(adapter, candidate, context)
              : await withTraceHeaders(trace.startAttempt(candidate.provider, candidate.model, attempt), () =>
                  invoke(adapter, candidate, context),
                );
          health.recordSuccess(candidate.provider);
          return { value, candidate, adapter, startedAt };
        } catch (error) {
          trace?.attemptFailed(scope.signal.aborted ? new ClientClosedError() : error);
          last = error;
          if (!isProviderError(error) || error.failure === 'aborted' || scope.signal.aborted) {
            health.release(candidate.provider);
            throw toGatewayError(scope.signal.aborted ? new ClientClosedError() : error, failures);
          }
          // A rejection proves the upstream is up; only retryable failures count against its health.
          if (error.retryable) health.recordFailure(candidate.provider, clock.now());
          else health.recordSuccess(candidate.provider);
          failures.push({
            provider: candidate.provider,
            model: candidate.model,
            status: error.status ?? null,
            failure: error.failure,
          });
          scope.recordFailedCall(
            candidate,
            roundMs(clock.monotonic() - startedAt),
            error.failure === 'http' ? `http_${error.status}` : error.failure,
            error.status ?? null,
          );
          const decision = decideRetry(
            {
              retryable: error.retryable,
              retryAfterMs: error.retryAfterMs,
              retriesSoFar: retries,
              budgetLeftMs: deadline - clock.monotonic(),
            },
            retry,
            this.#deps.random(),
          );
          // A rejection (400, 401, 403, a quota 429) would fail the same way elsewhere: no fallback.
          if (decision.retry === false && decision.reason === 'not_retryable')
            throw toGatewayError(error, failures, configuredKeys(registry, candidate.provider));
          if (!decision.retry) break;
          try {
            await this.#deps.wait(decision.delayMs, scope.signal);
          } catch {
            throw new ClientClosedError();
          }
        }
      }
      if (clock.monotonic() >= deadline) break;
    }
    if (last === undefined) {
      throw new ApiError(
        'provider_unavailable',
        'every candidate provider is temporarily unavailable (circuit open)',
        {
          details: { attempts: failures },
        },
      );
    }
    throw toGatewayError(last, failures);
  }
}

/** The keys configured for a slot, which no message from its upstream may repeat. */
function configuredKeys(registry: ProviderRegistry, slot: ProviderSlot): string[] {
  const key = (registry.settings(slot) as { apiKey?: string | undefined }).apiKey;
  return key === undefined ? [] : [key];
}
