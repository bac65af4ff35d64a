import { type Config, PROVIDER_SLOTS, type ProviderSlot } from '../../config/config-types.ts';
import { type ApiError, errorStatus } from '../../platform/errors.ts';
import {
  CollectedGauge,
  CounterFamily,
  type GaugeReading,
  HistogramFamily,
} from '../../platform/metrics/metric-families.ts';
import type { MetricsRegistry } from '../../platform/metrics/metrics-registry.ts';
import type { Operation, UsageRecord } from '../../storage/ports.ts';
import { configuredCircuits, type ProviderHealth } from '../../storage/provider-health.ts';
import type { SharedCountingState } from '../../storage/redis/redis-availability.ts';
import type { DeploymentBalancer } from '../balancing/deployment-balancer.ts';
import type { RunLabels } from '../services/run/request-run-labels.ts';
import type { RunMetrics } from '../services/run/request-run-metrics.ts';
import { GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME, GEN_AI_TOKEN_TYPE } from './gen-ai-names.ts';

/** The conventions' boundaries for gen_ai.client.token.usage. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** The conventions' boundaries for gen_ai.client.operation.duration, in seconds; used for every duration. */
const SECONDS_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/**
 * The ledger rounds costs to 1e-10 dollars; the counter adds whole units of that, so its total is
 * the ledger's sum exactly, whatever the order (floats added in another order differ in the last
 * digit), up to 2^53 units: about 900,000 dollars per process.
 */
const COST_UNITS_PER_USD = 1e10;
const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;

export interface GatewayMetricsSources {
  config: Config;
  health: ProviderHealth;
  /** This instance's view of each deployment: calls in flight, resting. */
  balancer: Pick<DeploymentBalancer, 'inFlightOf' | 'isResting'>;
  /** Ledger records accepted but not yet written. */
  ledgerPending: () => number;
  /** The label value of a model name (model-labels.ts); the name itself when absent. */
  modelLabel?: (slot: string, model: string) => string;
  /** Undefined without REDIS_URL. */
  sharedCounting: () => SharedCountingState | undefined;
  now: () => number;
}

/**
 * The gateway's series, counted from the ledger record a request finishes with (so the sums are
 * the ledger's to the token and the dollar) and from the upstream caller's skips; the rest is read
 * when scraped. See docs/operations.md for the reference.
 */
export class GatewayMetrics implements RunMetrics {
  readonly #vendor: Record<ProviderSlot, string>;
  readonly #requests = new CounterFamily(
    'gateway_requests_total',
    "Inference requests of authenticated apps, by how they ended (status is the HTTP status; 499: the client left; provider, deployment and model empty when refused before an upstream was chosen) and how they were addressed: route is a configured task, default, slot (the request pinned a slot) or other (a task the configuration does not know), empty for a request never routed (refused before routing, an MCP tool call); gen_ai_request_model is the model the client asked for (else its route's), other when neither the configuration nor the price data knows it.",
    [
      'front_door',
      'operation',
      'app',
      'route',
      'gen_ai_request_model',
      'provider',
      'deployment',
      'model',
      'status',
    ],
  );
  readonly #duration = new HistogramFamily(
    'gateway_request_duration_seconds',
    'Time from a request reaching the gateway until its run finished (a stream: its end).',
    ['front_door', 'operation', 'app', 'status_class'],
    SECONDS_BUCKETS,
  );
  readonly #firstToken = new HistogramFamily(
    'gateway_time_to_first_token_seconds',
    "Streamed chats: time from the request reaching the gateway until the upstream's first event.",
    ['front_door', 'app', 'provider', 'deployment', 'model'],
    SECONDS_BUCKETS,
  );
  readonly #attempts = new CounterFamily(
    'gateway_upstream_attempts_total',
    'Upstream calls, by slot, deployment, model and outcome (ok, stream_failed, http_<status>, timeout, connection…).',
    ['provider', 'deployment', 'model', 'outcome'],
  );
  readonly #skipped = new CounterFamily(
    'gateway_upstream_skipped_total',
    'Slots or deployments passed over without a call because their circuit was open.',
    ['provider', 'deployment'],
  );
  readonly #tokens = new HistogramFamily(
    'gen_ai_client_token_usage',
    'Tokens per answered upstream call (OpenTelemetry GenAI gen_ai.client.token.usage); _sum is the ledger total. cache_read and cache_creation are parts of input, observed when not 0.',
    ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_token_type', 'provider', 'model', 'app'],
    TOKEN_BUCKETS,
  );
  readonly #operationDuration = new HistogramFamily(
    'gen_ai_client_operation_duration_seconds',
    'Duration of each upstream call (OpenTelemetry GenAI gen_ai.client.operation.duration); error_type set when it failed.',
    [
      'gen_ai_operation_name',
      'gen_ai_provider_name',
      'gen_ai_request_model',
      'provider',
      'model',
      'error_type',
    ],
    SECONDS_BUCKETS,
  );
  readonly #cost = new CounterFamily(
    'gateway_cost_usd_total',
    'Cost in US dollars as the ledger records it, by app and the slot, deployment and model that served the request.',
    ['app', 'provider', 'deployment', 'model'],
    COST_UNITS_PER_USD,
  );
  readonly #cacheHits = new CounterFamily(
    'gateway_response_cache_hits_total',
    "Requests answered from the gateway's response cache, by app.",
    ['app'],
  );
  readonly #costSaved = new CounterFamily(
    'gateway_response_cache_saved_usd_total',
    'US dollars the response cache saved (what its hits would have cost), as the ledger records it, by app.',
    ['app'],
    COST_UNITS_PER_USD,
  );
  readonly #limitRefusals = new CounterFamily(
    'gateway_limit_refusals_total',
    "Requests refused with 429 by an app's limit, by app and limit (requests_per_minute, tokens_per_minute, daily_budget, monthly_budget, concurrent_requests).",
    ['app', 'limit'],
  );
  /** HTTP statuses as label text, made once each. */
  readonly #statusText = new Map<number, string>();
  readonly #model: (slot: string, model: string) => string;

  constructor(registry: MetricsRegistry, sources: GatewayMetricsSources) {
    const providers = sources.config.providers;
    this.#model = sources.modelLabel ?? ((_slot, model) => model);
    this.#vendor = Object.fromEntries(
      PROVIDER_SLOTS.map((slot) => [slot, GEN_AI_PROVIDER_NAME[providers[slot].kind]]),
    ) as Record<ProviderSlot, string>;
    for (const family of [
      this.#requests,
      this.#duration,
      this.#firstToken,
      this.#attempts,
      this.#skipped,
      this.#tokens,
      this.#operationDuration,
      this.#cost,
      this.#cacheHits,
      this.#costSaved,
      this.#limitRefusals,
    ])
      registry.add(family);
    // Every label value below comes from the configuration: one series per configured deployment.
    const circuits = configuredCircuits(sources.config.providers);
    registry.add(
      new CollectedGauge(
        'gateway_circuit_state',
        "Each circuit (a slot's, or each deployment's of a slot that lists them): 1 on its current state (closed, open, half_open), 0 on the others.",
        ['provider', 'deployment', 'state'],
        () => circuitReading(circuits, sources.health, sources.now()),
      ),
    );
    registry.add(
      new CollectedGauge(
        'gateway_deployment_in_flight',
        "Calls of this instance in flight to each slot's deployment (a slot without deployments: deployment empty).",
        ['provider', 'deployment'],
        () => circuits.map((c) => [[c.slot, c.deployment ?? ''], sources.balancer.inFlightOf(c.key)]),
      ),
    );
    registry.add(
      new CollectedGauge(
        'gateway_deployment_resting',
        '1 while a deployment rests after a 429 or a failure (its Retry-After or a backoff), as this instance sees it.',
        ['provider', 'deployment'],
        () => circuits.map((c) => [[c.slot, c.deployment ?? ''], sources.balancer.isResting(c.key) ? 1 : 0]),
      ),
    );
    registry.add(
      new CollectedGauge(
        'gateway_ledger_records_waiting',
        'Usage records accepted but not yet written to the ledger.',
        [],
        () => [[[], sources.ledgerPending()]],
      ),
    );
    registry.add(
      new CollectedGauge(
        'gateway_shared_counting',
        'With REDIS_URL: 1 on the current mode (shared: limits count in Redis; local: in this process during an outage).',
        ['mode'],
        () => sharedReading(sources.sharedCounting()),
      ),
    );
    registry.add(
      new CollectedGauge(
        'gateway_shared_counting_outages',
        'With REDIS_URL: Redis outages seen since the process started.',
        [],
        () => {
          const state = sources.sharedCounting();
          return state === undefined ? [] : [[[], state.outages]];
        },
      ),
    );
  }

  finished(record: UsageRecord, labels: RunLabels): void {
    const operation = record.operation;
    const frontDoor = record.frontDoor;
    const provider = record.provider ?? '';
    const deployment = record.deployment ?? '';
    const model = this.#model(provider, record.model ?? '');
    const requested = this.#model(labels.requestedSlot, labels.requestedModel);
    const status = this.#status(record.status);
    this.#requests
      .series([
        frontDoor,
        operation,
        record.app,
        labels.route,
        requested,
        provider,
        deployment,
        model,
        status,
      ])
      .inc();
    this.#duration
      .series([frontDoor, operation, record.app, statusClass(record.status)])
      .observe(record.latencyMs / 1000);
    if (operation === 'chat_stream' && record.upstreamFirstByteMs !== null && record.provider !== null)
      this.#firstToken
        .series([frontDoor, record.app, provider, deployment, model])
        .observe(record.upstreamFirstByteMs / 1000);
    if (record.provider !== null && record.costUsd > 0)
      this.#cost
        .series([record.app, provider, deployment, model])
        .inc(Math.round(record.costUsd * COST_UNITS_PER_USD));
    if (record.cacheHit) this.#cacheHits.series([record.app]).inc();
    if (record.costSavedUsd > 0)
      this.#costSaved.series([record.app]).inc(Math.round(record.costSavedUsd * COST_UNITS_PER_USD));
    const genAiOperation = GEN_AI_OPERATION_NAME[operation];
    for (const attempt of record.attempts) {
      const slot = attempt.provider as ProviderSlot;
      const vendor = this.#vendor[slot] ?? '';
      const answered = attempt.upstreamStatus === 200;
      const attemptModel = this.#model(slot, attempt.model);
      this.#attempts.series([slot, attempt.deployment ?? '', attemptModel, attempt.outcome]).inc();
      this.#operationDuration
        .series([
          genAiOperation,
          vendor,
          // The model the client asked for (OpenTelemetry's gen_ai.request.model), not the dated
          // name the upstream answered with, which is `model`.
          requested,
          slot,
          attemptModel,
          attempt.outcome === 'ok' ? '' : attempt.outcome,
        ])
        .observe(attempt.latencyMs / 1000);
      if (!answered) continue;
      this.#tokens
        .series([genAiOperation, vendor, GEN_AI_TOKEN_TYPE.input, slot, attemptModel, record.app])
        .observe(attempt.tokensIn);
      this.#tokens
        .series([genAiOperation, vendor, GEN_AI_TOKEN_TYPE.output, slot, attemptModel, record.app])
        .observe(attempt.tokensOut);
      // Parts of the input above: observed only when the upstream reported some, so their _count is
      // the calls that read from (or wrote to) the prompt cache.
      if (attempt.cacheReadTokens > 0)
        this.#tokens
          .series([genAiOperation, vendor, GEN_AI_TOKEN_TYPE.cacheRead, slot, attemptModel, record.app])
          .observe(attempt.cacheReadTokens);
      const written = attempt.cacheWrite5mTokens + attempt.cacheWrite1hTokens;
      if (written > 0)
        this.#tokens
          .series([genAiOperation, vendor, GEN_AI_TOKEN_TYPE.cacheCreation, slot, attemptModel, record.app])
          .observe(written);
    }
  }

  refusedBeforeRun(app: string, operation: Operation, frontDoor: string, status: number): void {
    this.#requests.series([frontDoor, operation, app, '', '', '', '', '', this.#status(status)]).inc();
  }

  refused(
    { app, operation, frontDoor }: { app: string; operation: Operation; frontDoor: string },
    error: ApiError,
    labels: RunLabels,
  ): void {
    const requested = this.#model(labels.requestedSlot, labels.requestedModel);
    const status = this.#status(error.statusCode);
    this.#requests.series([frontDoor, operation, app, labels.route, requested, '', '', '', status]).inc();
    if (error.code === 'rate_limited') {
      const limit = (error.details as { limit?: unknown } | undefined)?.limit;
      // The limiter names its limits in words ('requests per minute'): a label gets them in snake case.
      this.#limitRefusals
        .series([app, typeof limit === 'string' ? limit.replaceAll(' ', '_') : 'unknown'])
        .inc();
    }
  }

  skipped(slot: ProviderSlot, deployment: string | null): void {
    this.#skipped.series([slot, deployment ?? '']).inc();
  }

  #status(status: number): string {
    let text = this.#statusText.get(status);
    if (text === undefined) {
      text = String(status);
      this.#statusText.set(status, text);
    }
    return text;
  }
}

function statusClass(status: number): string {
  if (status < 400) return '2xx';
  if (status === errorStatus.client_closed) return 'client_closed';
  return status < 500 ? '4xx' : '5xx';
}

function circuitReading(
  circuits: ReturnType<typeof configuredCircuits>,
  health: ProviderHealth,
  now: number,
): GaugeReading {
  const reading: [string[], number][] = [];
  for (const { key, slot, deployment } of circuits) {
    const current = health.state(key, now);
    for (const state of CIRCUIT_STATES) {
      reading.push([[slot, deployment ?? '', state], state === current ? 1 : 0]);
    }
  }
  return reading;
}

function sharedReading(state: SharedCountingState | undefined): GaugeReading {
  if (state === undefined) return [];
  return [
    [['shared'], state.mode === 'shared' ? 1 : 0],
    [['local'], state.mode === 'local' ? 1 : 0],
  ];
}
