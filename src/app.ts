import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config-types.ts';
import { AppAdmin } from './gateway/auth/app-admin.ts';
import { CredentialVerifier, type CredentialVerifierOptions } from './gateway/auth/credential-verifier.ts';
import { DeploymentBalancer } from './gateway/balancing/deployment-balancer.ts';
import { GATEWAY_API_VERSION } from './gateway/doors/native/openapi-document.ts';
import { buildGatewayApp } from './gateway/gateway-app.ts';
import { applyGovernanceSeeds } from './gateway/governance/apply-governance-seeds.ts';
import { openChangeSignal } from './gateway/governance/change-signal.ts';
import { governanceAdminOf } from './gateway/governance/governance-admin-of.ts';
import { GovernanceCache } from './gateway/governance/governance-cache.ts';
import { keysFromGovernance } from './gateway/governance/governance-keys.ts';
import { KeyUseRecorder } from './gateway/governance/key-use-recorder.ts';
import { limitPoliciesOf } from './gateway/governance/limit-policies.ts';
import { Guardrails } from './gateway/guardrails/guardrails.ts';
import { SchemaCompiler } from './gateway/json/schema-compiler.ts';
import { AppLimiter } from './gateway/limits/app-limiter.ts';
import { RefusalCounter } from './gateway/limits/refusal-counter.ts';
import { GatewayMetrics } from './gateway/observability/gateway-metrics.ts';
import { McpToolMetrics } from './gateway/observability/mcp-metrics.ts';
import { modelLabelsFor } from './gateway/observability/model-labels.ts';
import { type GatewayTracing, startTracing } from './gateway/observability/tracing/gateway-tracing.ts';
import { PriceBook } from './gateway/pricing/price-book.ts';
import {
  type ADAPTER_FACTORIES,
  buildRegistry,
  type ProviderRegistry,
} from './gateway/providers/registry.ts';
import { UsageRecorder } from './gateway/services/ledger/usage-recorder.ts';
import { startUsageRetention } from './gateway/services/ledger/usage-retention.ts';
import { ResponseCache } from './gateway/services/response-cache/response-cache.ts';
import { UpstreamCaller } from './gateway/services/upstream/upstream-caller.ts';
import { modelAddressingWarnings } from './gateway/services/use-cases/address-model.ts';
import { openSharedState } from './gateway/shared-state.ts';
import { TokenizerThread } from './gateway/tokenizer/tokenizer-thread.ts';
import { type Clock, systemClock } from './platform/clock.ts';
import type { Logger } from './platform/logger.ts';
import { answerMetricsForInstance } from './platform/metrics/instance-metrics.ts';
import { MetricsRegistry } from './platform/metrics/metrics-registry.ts';
import type { RpcPeer } from './platform/rpc-peer.ts';
import { openWorkerStorage } from './storage/coordinator/worker-storage.ts';
import { openStorage } from './storage/open-storage.ts';
import type { HeldRun, Storage } from './storage/ports.ts';
import type { SharedCountingState } from './storage/redis/redis-availability.ts';

export interface Application {
  config: Config;
  storage: Storage;
  registry: ProviderRegistry;
  recorder: UsageRecorder;
  verifier: CredentialVerifier;
  /** Teams, apps and keys as this instance holds them (CONTRACT 6.5). */
  governance: GovernanceCache;
  keyUses: KeyUseRecorder;
  gateway: FastifyInstance | undefined;
  site: FastifyInstance | undefined;
  /**
   * With REDIS_URL: whether limits count in Redis or, during an outage, in this process. Read by
   * the outage tests; GET /metrics exposes it as gateway_shared_counting.
   */
  sharedCounting(): SharedCountingState | undefined;
  /** Span export, when an OTLP endpoint is configured (tests flush it). */
  tracing: GatewayTracing | undefined;
  /** Stops accepting work, lets in-flight requests finish (up to the grace period), flushes records. */
  close(): Promise<void>;
}

export interface BuildOptions {
  clock?: Clock;
  /** Build the gateway's upstream caller with a custom wait (tests make backoff instant). */
  retryWait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Adapter factories per provider kind (tests wrap them to count upstream calls). */
  adapterFactories?: typeof ADAPTER_FACTORIES;
  /** The tokenizer's thread, with its options (tests give one whose worker they can kill). */
  tokenizer?: TokenizerThread;
  /** The credential checks' limits (the fuzz answers throttled checks without their delay). */
  credentialChecks?: CredentialVerifierOptions;
  /** How often the governance store's version is read (tests lengthen it to see the Redis signal alone). */
  governancePollMs?: number;
  /**
   * In a worker of several (CONTRACT 6.8): the channel to the primary, which holds the shared
   * state (without Redis), the embedded database's one writer and the instance's metrics.
   */
  worker?: RpcPeer;
}

export const DEMO_APP = 'demo';
export const DEMO_SECRET_FILE = 'demo-app.secret';

/** Builds both surfaces and everything they stand on, from a loaded configuration. */
export async function buildApplication(
  config: Config,
  logger: Logger,
  options: BuildOptions = {},
): Promise<Application> {
  const clock = options.clock ?? systemClock;
  // What is open so far, closed in reverse if a later step fails: a start-up that fails must leave
  // nothing running, so the process ends by itself (see main.ts) rather than by process.exit().
  const opened: Array<() => unknown> = [];
  try {
    return await buildOpening(config, logger, options, clock, opened);
  } catch (error) {
    for (const close of opened.reverse()) {
      try {
        await close();
      } catch {
        // The start-up error is the one worth reporting; a close failing after it adds nothing.
      }
    }
    throw error;
  }
}

async function buildOpening(
  config: Config,
  logger: Logger,
  options: BuildOptions,
  clock: Clock,
  opened: Array<() => unknown>,
): Promise<Application> {
  const worker = options.worker;
  const storage = worker === undefined ? await openStorage(config) : await openWorkerStorage(config, worker);
  opened.push(() => storage.close());
  // A worker's primary seeded the apps before starting it.
  if (worker === undefined) await seedApps(storage, config, logger, clock);
  const governance = new GovernanceCache(
    storage.governance,
    logger.child({ component: 'governance' }),
    options.governancePollMs === undefined ? {} : { pollMs: options.governancePollMs },
  );
  await governance.start();
  opened.push(() => governance.stop());
  const keyUses = new KeyUseRecorder(storage.governance, logger.child({ component: 'governance' }));
  opened.push(() => keyUses.close());

  const shared = await openSharedState(config, logger, () => clock.now(), worker);
  opened.push(() => shared.close());
  const changeSignal = await openChangeSignal(
    shared.redis,
    config.redisKeyPrefix,
    governance,
    logger.child({ component: 'governance' }),
  );
  if (changeSignal !== undefined) opened.push(() => changeSignal.close());
  const priceBook = new PriceBook(config.prices);
  await priceBook.load();
  // The tokenizer's thread (about 85 MiB with o200k's tables) starts on the first call that needs
  // it, not here: a gateway whose upstreams report usage never pays it (docs/performance.md).
  const tokenizer =
    options.tokenizer ?? new TokenizerThread({ logger: logger.child({ component: 'tokenizer' }) });
  opened.push(() => tokenizer.close());
  const registry = buildRegistry(config, { tokenizer }, options.adapterFactories);
  opened.push(() => registry.close());
  if (config.surfaces.gateway) {
    for (const warning of modelAddressingWarnings({ config, registry })) logger.warn(warning);
  }
  const recorder = new UsageRecorder(storage.usage, logger.child({ component: 'usage' }), {
    ...(config.dataDir === ':memory:' ? {} : { spillDir: config.dataDir }),
    ...(worker === undefined ? {} : { onAdmitted: (run: HeldRun) => worker.notifyEach('runs.open', run) }),
  });
  opened.push(() => recorder.flush({ final: true }));
  const verifier = new CredentialVerifier(
    keysFromGovernance(governance, storage.apps),
    clock,
    options.credentialChecks,
    keyUses.note,
  );
  // One registry for both surfaces of this application; GET /metrics is served on surface A.
  const metricsRegistry = config.metrics.enabled ? new MetricsRegistry() : undefined;
  if (metricsRegistry !== undefined && worker !== undefined)
    answerMetricsForInstance(metricsRegistry, worker);
  const balancer = new DeploymentBalancer({
    health: shared.health,
    inFlight: shared.inFlight,
    retry: config.retry,
    circuit: config.circuit,
    clock,
    ...(shared.rests === undefined ? {} : { rests: shared.rests }),
  });
  const metrics =
    metricsRegistry === undefined
      ? undefined
      : new GatewayMetrics(metricsRegistry, {
          config,
          health: shared.health,
          balancer,
          ledgerPending: () => recorder.pending,
          modelLabel: modelLabelsFor(config, registry.profiles, priceBook),
          sharedCounting: () => shared.sharedCounting(),
          now: () => clock.now(),
        });
  const caller = new UpstreamCaller({
    registry,
    retry: config.retry,
    clock,
    health: shared.health,
    balancer,
    metrics,
    ...(options.retryWait === undefined ? {} : { wait: options.retryWait }),
  });
  // Refusals never reach the ledger; the admin API reads them from these counts.
  const refusals = new RefusalCounter(storage.insights);
  opened.push(() => refusals.close());
  const limiter = new AppLimiter(
    config.limits,
    shared.limits,
    () => clock.now(),
    (app, limit, now) => refusals.count(app, limit, now),
    limitPoliciesOf(governance),
  );
  const deps = {
    governance,
    limiter,
    tokenizer,
    config,
    registry,
    priceBook,
    caller,
    recorder,
    schemas: new SchemaCompiler(config.json),
    clock,
    metrics,
    responseCache: new ResponseCache(config.responseCache, config.routing.tasks, shared.responseCache),
    guardrails: new Guardrails(config.guardrails, metricsRegistry, logger.child({ component: 'guardrails' })),
  };

  // Without an OTLP endpoint, nothing of OpenTelemetry is loaded.
  const tracing = config.surfaces.gateway
    ? await startTracing(config.tracing, registry, GATEWAY_API_VERSION)
    : undefined;
  if (tracing !== undefined) opened.push(() => tracing.shutdown());
  const stopRetention = config.surfaces.gateway
    ? startUsageRetention(storage.usage, config.usage.retentionDays, logger.child({ component: 'usage' }))
    : () => {};
  opened.push(stopRetention);
  const gateway = config.surfaces.gateway
    ? await buildGatewayApp({
        ...deps,
        storage,
        logger,
        verifier,
        metricsRegistry,
        tracing,
        refusals,
        adminGovernance: governanceAdminOf(storage, governance, clock, changeSignal?.announce),
        mcpMetrics:
          metricsRegistry === undefined ? undefined : new McpToolMetrics(metricsRegistry, config.mcp),
      })
    : undefined;
  if (gateway !== undefined) opened.push(() => gateway.close());
  const site = config.surfaces.site
    ? await buildSite({ config, logger, storage, clock, limits: shared.limits, metrics: metricsRegistry })
    : undefined;

  return {
    config,
    storage,
    registry,
    recorder,
    verifier,
    governance,
    keyUses,
    gateway,
    site,
    sharedCounting: () => shared.sharedCounting(),
    tracing,
    async close() {
      const servers = [gateway, site].filter((app): app is FastifyInstance => app !== undefined);
      const grace = setTimeout(() => {
        logger.warn('shutdown grace period over; closing remaining connections');
        for (const app of servers) app.server.closeAllConnections();
      }, config.shutdownGraceMs);
      grace.unref();
      await Promise.all(servers.map((app) => app.close()));
      clearTimeout(grace);
      stopRetention();
      // No request is left to count for: the servers have closed.
      await tokenizer.close();
      governance.stop();
      await changeSignal?.close();
      await keyUses
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, "keys' last use not written"));
      await recorder.flush({ final: true });
      await refusals
        .close()
        .catch((error: unknown) => logger.error({ err: error }, 'limit refusal counts not written'));
      // The last spans go out before the process ends; a collector that is down costs its timeout.
      await tracing
        ?.shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, 'trace export failed at shutdown'));
      await registry.close();
      await shared.close();
      await storage.close();
    },
  };
}

/** The configured apps, and `demo` when there is none: once per instance, before it serves. */
export async function seedApps(
  storage: Storage,
  config: Config,
  logger: Logger,
  clock: Clock,
): Promise<void> {
  const admin = new AppAdmin(storage.apps, clock);
  await admin.applySeeds(config.apps);
  await createDemoAppIfEmpty(admin, config, logger);
  const seeded = await applyGovernanceSeeds(config, storage.governance, clock.now());
  for (const team of seeded.teamsKeptFromApi)
    logger.warn(
      { team },
      'a team of the configuration was made through the admin API: the stored one is kept',
    );
}

/**
 * With no app at all, `npm start` would be unusable: create `demo` with a fresh secret and
 * write the secret to a file readable only by the owner (secrets never go to the log).
 * With several instances starting together on one database, only the instance whose insert
 * created `demo` knows its secret and writes the file; the others log where to find it and write
 * nothing, so no file ever holds a secret that does not work.
 */
async function createDemoAppIfEmpty(admin: AppAdmin, config: Config, logger: Logger): Promise<void> {
  if (config.dataDir === ':memory:' || (await admin.list()).length > 0) return;
  const created = await admin.createIfAbsent(DEMO_APP);
  if (created === undefined) {
    logger.info(
      { app: DEMO_APP },
      `no apps were configured: app "demo" was created by another instance starting at the same time; its secret is in ${DEMO_SECRET_FILE} of that instance's DATA_DIR`,
    );
    return;
  }
  const file = join(config.dataDir, DEMO_SECRET_FILE);
  writeFileSync(file, `${created.secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.info(
    { app: DEMO_APP, secretFile: file },
    'no apps were configured: created app "demo"; its secret is in the file',
  );
}

/**
 * Surface B (MCP SDK, zod, mail, content) is loaded only when it is served: a gateway-only
 * instance saves about 50 MB of memory.
 */
async function buildSite(deps: import('./site/site-app.ts').SiteAppDeps): Promise<FastifyInstance> {
  const { buildSiteApp } = await import('./site/site-app.ts');
  return buildSiteApp(deps);
}
