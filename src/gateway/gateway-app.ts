import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { respondWithError } from '../platform/error-handler.ts';
import { createBaseApp } from '../platform/fastify-base.ts';
import type { Logger } from '../platform/logger.ts';
import type { MetricsRegistry } from '../platform/metrics/metrics-registry.ts';
import { registerMetricsRoute } from '../platform/metrics/metrics-route.ts';
import type { Storage } from '../storage/ports.ts';
import type { AdminGovernance } from './admin/admin-api-routes.ts';
import { registerAdmin } from './admin/admin-plugin.ts';
import type { CredentialVerifier } from './auth/credential-verifier.ts';
import type { BatchDeps } from './batches/batch-deps.ts';
import { LiveTraffic } from './batches/live-traffic.ts';
import { pollVendorBatches, registerBatchRoutes, runBatches } from './batches/register-batches.ts';
import { vendorRoute } from './batches/vendor-plan.ts';
import { registerAnthropicDoor } from './doors/anthropic/anthropic-door.ts';
import { registerGeminiDoor } from './doors/gemini/gemini-door.ts';
import { registerMcpDoor } from './doors/mcp/mcp-door.ts';
import { registerLivenessRoute } from './doors/native/liveness-route.ts';
import { registerNativeDoor } from './doors/native/native-door.ts';
import {
  ChatResponse,
  EmbedResponse,
  GatewayHealth,
  JsonResponse,
  SHARED_SCHEMAS,
} from './doors/native/native-schemas.ts';
import { GATEWAY_API_VERSION, openApiOptions } from './doors/native/openapi-document.ts';
import { registerOpenAIDoor } from './doors/openai/openai-door.ts';
import { registerResponsesDoor } from './doors/responses/responses-door.ts';
import { createAuthHook } from './http/authenticate.ts';
import { BatchTickets } from './http/batch-tickets.ts';
import { countRequestsWithoutRun } from './http/count-requests-without-run.ts';
import { guardInput } from './http/guard-input.ts';
import { traceRequests } from './http/trace-requests.ts';
import type { TypedInstance } from './http/typed-instance.ts';
import type { RefusalCounter } from './limits/refusal-counter.ts';
import type { McpToolMetrics } from './observability/mcp-metrics.ts';
import type { GatewayTracing } from './observability/tracing/gateway-tracing.ts';
import type { GatewayDeps } from './services/gateway-deps.ts';
import { isModelAllowed } from './services/run/model-access.ts';
import { ResponseMemory } from './services/use-cases/response-memory.ts';

export interface GatewayAppDeps extends GatewayDeps {
  storage: Storage;
  logger: Logger;
  verifier: CredentialVerifier;
  /** Both surfaces' metrics; undefined when metrics are off (then /metrics is a 404). */
  metricsRegistry?: MetricsRegistry | undefined;
  /** Undefined unless an OTLP endpoint is configured. */
  tracing?: GatewayTracing | undefined;
  refusals: RefusalCounter;
  /** The admin API's teams, apps and keys (CONTRACT 6.5). */
  adminGovernance: AdminGovernance;
  /** The MCP gateway's tool-call counter; undefined when metrics are off. */
  mcpMetrics?: McpToolMetrics | undefined;
}

/**
 * Surface A: the plumbing first (request ids and the envelope from the base app, GET /health,
 * GET /openapi.json, GET /metrics, the dashboard and /admin/api with ADMIN_TOKEN, and the
 * authenticated /v1 scope with its hooks), then every door inside that scope: the native API,
 * OpenAI's and Anthropic's, and the MCP gateway's POST /mcp. A door's chat goes through the one handler (`doors/serve-chat.ts`).
 */
export async function buildGatewayApp(deps: GatewayAppDeps): Promise<FastifyInstance> {
  const app = createBaseApp({
    logger: deps.logger,
    maxBodyBytes: deps.config.maxBodyBytes,
    trustProxy: deps.config.trustProxy,
    timeouts: deps.config.connections,
  });
  for (const schema of [...SHARED_SCHEMAS, ChatResponse, EmbedResponse, JsonResponse, GatewayHealth])
    app.addSchema(schema);
  await app.register(swagger, openApiOptions(deps.config.publicGatewayUrl));

  registerLivenessRoute(app, deps.config);
  registerAdmin(app, {
    adminToken: deps.config.adminToken,
    publicUrl: deps.config.publicGatewayUrl,
    storage: deps.storage,
    recorder: deps.recorder,
    refusals: deps.refusals,
    limiter: deps.limiter,
    now: () => deps.clock.now(),
    governance: deps.adminGovernance,
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  // Which batches a vendor's own batch API runs (docs/batches.md "Where requests run").
  const vendor = vendorRoute({ ...deps, teamOf: (app) => deps.governance?.snapshot.app(app)?.team });
  const batches: BatchDeps = {
    store: deps.storage.batches,
    settings: deps.config.batches,
    clock: deps.clock,
    publicUrl: deps.config.publicGatewayUrl,
    // The one check of a batch line's model against the app's and its team's allow lists
    // (CONTRACT 6.5); the door checks the resolved slot/model again when the request runs.
    modelAllowed: (app, model) => isModelAllowed(deps, app, { requested: model }),
    vendor,
  };
  const tickets = new BatchTickets();
  const live = new LiveTraffic();
  if (deps.metricsRegistry !== undefined)
    registerMetricsRoute(app, deps.metricsRegistry, deps.config.metrics.token);

  await app.register(async (untyped) => {
    const v1 = untyped.withTypeProvider<TypeBoxTypeProvider>();
    v1.setErrorHandler(respondWithError);
    if (deps.tracing !== undefined) traceRequests(v1, deps.tracing);
    v1.addHook('onRequest', live.hook);
    v1.addHook(
      'onRequest',
      createAuthHook(deps.verifier, tickets, (app) => deps.governance?.snapshot.app(app)?.team),
    );
    countRequestsWithoutRun(v1, deps.metrics);
    // Back-pressure: when the usage ledger falls behind, new work waits instead of rows being
    // dropped, for a bounded time; then it is refused with a 503 (see UsageRecorder.whenWritable).
    v1.addHook('preHandler', (_request, _reply, done) => {
      const backlog = deps.recorder.whenWritable();
      if (backlog === undefined) done();
      else void backlog.then(() => done(), done);
    });
    guardInput(v1, deps);
    await registerDoors(v1, deps);
    await registerBatchRoutes(v1, batches);
  });
  runBatches(app, {
    ...batches,
    tickets,
    live,
    flushLedger: () => deps.recorder.flush(),
    logger: deps.logger,
  });
  pollVendorBatches(app, {
    store: deps.storage.batches.upstream,
    settings: deps.config.batches,
    clock: deps.clock,
    route: vendor,
    registry: deps.registry,
    priceBook: deps.priceBook,
    limiter: deps.limiter,
    record: (row) => deps.recorder.record(row),
    flushLedger: () => deps.recorder.flush(),
    teamOf: (app) => deps.governance?.snapshot.app(app)?.team,
    logger: deps.logger,
  });
  return app;
}

/** Every door, inside the authenticated /v1 scope: a new door is one more line here. */
async function registerDoors(v1: TypedInstance, deps: GatewayAppDeps): Promise<void> {
  registerNativeDoor(v1, deps);
  await registerOpenAIDoor(v1, deps);
  await registerAnthropicDoor(v1, deps);
  await registerResponsesDoor(
    v1,
    deps,
    new ResponseMemory(deps.storage.responses, deps.config.usage, deps.clock),
  );
  await registerMcpDoor(v1, { ...deps, version: GATEWAY_API_VERSION });
  await registerGeminiDoor(v1, deps);
}
