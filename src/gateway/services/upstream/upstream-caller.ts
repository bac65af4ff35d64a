import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderSlot, RetrySettings } from '../../../config/config-types.ts';
import { DEFAULTS } from '../../../config/defaults.ts';
import type { Clock } from '../../../platform/clock.ts';
import { roundMs } from '../../../platform/clock.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { ProviderHealth } from '../../../storage/provider-health.ts';
import { DeploymentBalancer, type DeploymentPick } from '../../balancing/deployment-balancer.ts';
import { decideRetry } from '../../domain/retry-policy.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import { withTraceHeaders } from '../../providers/http/trace-headers.ts';
import type { CallContext, ProviderAdapter } from '../../providers/provider.ts';
import { isProviderError, type ProviderError } from '../../providers/provider-error.ts';
import type { Deployment, ProviderRegistry } from '../../providers/registry.ts';
import { ClientClosedError } from '../run/client-closed-error.ts';
import type { RunMetrics } from '../run/request-run-metrics.ts';
import type { RunTrace } from '../run/request-run-trace.ts';
import { promptCacheKeyFor } from './prompt-cache-key.ts';
import { type FailedCall, toGatewayError } from './upstream-error-mapping.ts';

export interface CallSuccess<T> {
  value: T;
  candidate: PlannedCandidate;
  adapter: ProviderAdapter;
  /** The deployment that answered; null for a slot without deployments. */
  deployment: string | null;
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
  readonly app: string;
  /** The session the request belongs to (CONTRACT 5.6), which keeps it on one deployment; undefined: none. */
  readonly sessionKey: string | undefined;
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
    deployment: string | null,
  ): void;
  /**
   * The call that answered: its deployment, what ends its in-flight count once the request is
   * over, and the client's model name when the deployment's `modelMap` sent another id.
   */
  answeredBy(deployment: string | null, release: () => void, clientModel?: string): void;
  /** The call in flight when the client left: the upstream had the request (CONTRACT 5.1). */
  recordAbandonedCall(
    candidate: PlannedCandidate,
    adapter: ProviderAdapter,
    startedAt: number,
    deployment: string | null,
  ): void;
}

export interface UpstreamCallerDeps {
  registry: ProviderRegistry;
  retry: RetrySettings;
  clock: Clock;
  health: ProviderHealth;
  /** Picks a slot's deployment; by default one with in-process counts and the default circuit settings. */
  balancer?: DeploymentBalancer;
  random?: () => number;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of deployments skipped for an open circuit (calls are counted from the ledger record). */
  metrics?: Pick<RunMetrics, 'skipped'> | undefined;
}

/**
 * Calls the planned candidates in order until one answers. For each candidate (a slot), rounds of
 * calls: each round calls the slot's deployments that serve the model, each at most once, in the
 * balancer's order (a slot without deployments: its one upstream). A retryable failure rests that
 * deployment and the round goes on to the next; after a round that did not answer, another round
 * after a backoff, up to `maxRetries`, then the next candidate. A rejection ends the request at
 * once, except a deployment's key or quota refusal (401, 403, quota 429), after which the slot's
 * other deployments are tried. All of it stays within the retry budget, and every failed call is
 * kept on the scope. "Answered" is whatever `invoke` resolves with: for a stream, its first
 * event, so a provider is never switched once a byte may have reached the client.
 */
export class UpstreamCaller {
  readonly #deps: Required<Omit<UpstreamCallerDeps, 'metrics' | 'balancer'>>;
  readonly #balancer: DeploymentBalancer;
  readonly #metrics: Pick<RunMetrics, 'skipped'> | undefined;

  constructor(deps: UpstreamCallerDeps) {
    this.#metrics = deps.metrics;
    this.#deps = {
      random: Math.random,
      wait: (ms, signal) => sleep(ms, undefined, { signal }),
      ...deps,
    };
    this.#balancer =
      deps.balancer ??
      new DeploymentBalancer({
        health: deps.health,
        retry: deps.retry,
        circuit: DEFAULTS.circuit,
        clock: deps.clock,
      });
  }

  async call<T>(
    candidates: readonly PlannedCandidate[],
    scope: CallScope,
    invoke: Invoke<T>,
  ): Promise<CallSuccess<T>> {
    const { registry, retry, clock, health } = this.#deps;
    const deadline = scope.startedAt + retry.budgetMs;
    const affinity = scope.sessionKey === undefined ? undefined : `${scope.app}\u0000${scope.sessionKey}`;
    const failures: FailedCall[] = [];
    let last: unknown;
    let served = false;
    for (const candidate of candidates) {
      const pool = registry.pool(candidate.provider);
      for (let round = 0; ; round++) {
        if (scope.signal.aborted) throw new ClientClosedError();
        const deployments = this.#balancer.startRound(pool, candidate.model, affinity);
        if (deployments.eligible === 0) {
          failures.push({
            provider: candidate.provider,
            model: candidate.model,
            status: null,
            failure: 'model_not_served',
          });
          break;
        }
        served = true;
        for (const deployment of deployments.open) this.#skip(candidate, deployment, failures);
        let called = false;
        let retryable: ProviderError | undefined;
        for (let next = deployments.next(); ; next = deployments.next()) {
          // A promise only when the pick waits on the shared in-flight counter (least-busy).
          const pick = next instanceof Promise ? await next : next;
          if (pick === undefined) break;
          const { deployment } = pick;
          if (scope.signal.aborted) {
            pick.release();
            throw new ClientClosedError();
          }
          // The budget is checked between calls of a round as it is between rounds.
          if (called && clock.monotonic() >= deadline) {
            pick.release();
            break;
          }
          if (!health.tryAcquire(deployment.key, clock.now())) {
            pick.release();
            this.#skip(candidate, deployment, failures);
            continue;
          }
          called = true;
          const attempt = scope.takeAttemptNumber(candidate.provider);
          const startedAt = clock.monotonic();
          const trace = scope.trace;
          const adapter = deployment.adapter;
          const context = {
            signal: scope.signal,
            requestId: scope.requestId,
            attempt,
            metadata: scope.metadata,
            promptCacheKey: promptCacheKeyFor(scope.app, scope.sessionKey),
          };
          let value: T;
          try {
            value =
              trace === undefined
                ? await invoke(adapter, candidate, context)
                : await withTraceHeaders(
                    trace.startAttempt(candidate.provider, candidate.model, attempt, deployment.name),
                    () => invoke(adapter, candidate, context),
                  );
          } catch (error) {
            const failure = this.#failed(error, candidate, pick, scope, startedAt, failures);
            last = failure;
            if (failure.retryable) retryable = failure;
            continue;
          }
          health.recordSuccess(deployment.key);
          const answeredAt = clock.monotonic();
          this.#balancer.answered(pool, deployment, answeredAt - startedAt, answeredAt);
          const upstreamModel = adapter.upstreamModel?.(candidate.model) ?? candidate.model;
          if (upstreamModel === candidate.model) scope.answeredBy(deployment.name, pick.release);
          else scope.answeredBy(deployment.name, pick.release, candidate.model);
          return { value, candidate, adapter, deployment: deployment.name, startedAt };
        }
        // Every deployment's circuit is open (or busy probing): the slot is skipped, as a slot always was.
        if (!called) break;
        // Only refusals of a deployment's key or quota, on every deployment: they would not change.
        if (retryable === undefined) throw toGatewayError(last, failures);
        const restMs = pool.deployments.length > 1 ? this.#balancer.wakeInMs(deployments.queue) : 0;
        const decision = decideRetry(
          {
            retryable: true,
            retryAfterMs: Math.max(retryable.retryAfterMs ?? 0, restMs) || undefined,
            retriesSoFar: round,
            budgetLeftMs: deadline - clock.monotonic(),
          },
          retry,
          this.#deps.random(),
        );
        if (!decision.retry) break;
        try {
          await this.#deps.wait(decision.delayMs, scope.signal);
        } catch {
          throw new ClientClosedError();
        }
      }
      if (clock.monotonic() >= deadline) break;
    }
    if (last !== undefined) throw toGatewayError(last, failures);
    if (!served) {
      const model = candidates[0]?.model ?? '';
      throw new ApiError(
        'not_found',
        `no deployment of the planned providers serves the model '${model.slice(0, 200)}'`,
        {
          details: { attempts: failures },
        },
      );
    }
    throw new ApiError(
      'provider_unavailable',
      'every candidate provider is temporarily unavailable (circuit open)',
      {
        details: { attempts: failures },
      },
    );
  }

  /**
   * A call that failed. A failure that ends the request (the client left, a rejection that another
   * deployment would meet too, anything but a ProviderError) is thrown; a retryable one, or a
   * refusal of this deployment's key or quota, rests the deployment and is answered.
   */
  #failed(
    error: unknown,
    candidate: PlannedCandidate,
    { deployment, release }: DeploymentPick,
    scope: CallScope,
    startedAt: number,
    failures: FailedCall[],
  ): ProviderError {
    const { clock, health } = this.#deps;
    release();
    scope.trace?.attemptFailed(scope.signal.aborted ? new ClientClosedError() : error);
    if (!isProviderError(error) || error.failure === 'aborted' || scope.signal.aborted) {
      health.release(deployment.key);
      if (scope.signal.aborted)
        scope.recordAbandonedCall(candidate, deployment.adapter, startedAt, deployment.name);
      throw toGatewayError(scope.signal.aborted ? new ClientClosedError() : error, failures);
    }
    // A rejection proves the upstream is up; only retryable failures count against its health.
    if (error.retryable) health.recordFailure(deployment.key, clock.now());
    else health.recordSuccess(deployment.key);
    failures.push(failedCall(candidate, deployment, error));
    scope.recordFailedCall(
      candidate,
      roundMs(clock.monotonic() - startedAt),
      error.failure === 'http' ? `http_${error.status}` : error.failure,
      error.status ?? null,
      deployment.name,
    );
    const several = this.#deps.registry.pool(candidate.provider).deployments.length > 1;
    const ownRefusal = !error.retryable && several && refusesThisDeployment(error);
    // Any other rejection (400, 404, …) would fail the same way elsewhere: no other deployment, no fallback.
    if (!error.retryable && !ownRefusal)
      throw toGatewayError(error, failures, configuredKeys(this.#deps.registry, candidate.provider));
    this.#balancer.rest(deployment, error.retryAfterMs, error.retryable);
    return error;
  }

  #skip(candidate: PlannedCandidate, deployment: Deployment, failures: FailedCall[]): void {
    this.#metrics?.skipped(candidate.provider, deployment.name);
    failures.push({
      ...failedCall(candidate, deployment, undefined),
      status: null,
      failure: 'circuit_open',
    });
  }
}

/** 401, 403 or a quota 429: this deployment's key or account is refused; another's may not be. */
function refusesThisDeployment(error: ProviderError): boolean {
  return error.failure === 'http' && (error.status === 401 || error.status === 403 || error.status === 429);
}

function failedCall(
  candidate: PlannedCandidate,
  deployment: Deployment,
  error: ProviderError | undefined,
): FailedCall {
  const call: FailedCall = {
    provider: candidate.provider,
    model: candidate.model,
    status: error?.status ?? null,
    failure: error?.failure ?? '',
  };
  if (deployment.name !== null) call.deployment = deployment.name;
  return call;
}

/** The keys configured for a slot and its deployments, which no message from its upstreams may repeat. */
export function configuredKeys(registry: ProviderRegistry, slot: ProviderSlot): string[] {
  const settings = registry.settings(slot) as {
    apiKey?: string | undefined;
    deployments?: readonly { apiKey?: string | undefined }[];
  };
  const keys = [settings.apiKey, ...(settings.deployments ?? []).map((deployment) => deployment.apiKey)];
  return keys.filter((key): key is string => key !== undefined);
}
