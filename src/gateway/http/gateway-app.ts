import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { respondWithError } from '../../platform/error-handler.ts';
import { createBaseApp } from '../../platform/fastify-base.ts';
import type { Logger } from '../../platform/logger.ts';
import type { MetricsRegistry } from '../../platform/metrics/metrics-registry.ts';
import { registerMetricsRoute } from '../../platform/metrics/metrics-route.ts';
import type { Storage } from '../../storage/ports.ts';
import { registerAdmin } from '../admin/admin-plugin.ts';
import type { CredentialVerifier } from '../auth/credential-verifier.ts';
import type { RefusalCounter } from '../limits/refusal-counter.ts';
import type { GatewayTracing } from '../observability/tracing/gateway-tracing.ts';
import { CLIENT_CLOSED_STATUS, ClientClosedError } from '../services/client-closed-error.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { createAuthHook } from './authenticate.ts';
import { registerChatRoute } from './chat-route.ts';
import { countRequestsWithoutRun } from './count-requests-without-run.ts';
import { registerEmbedRoute } from './embed-route.ts';
import { registerHealthRoute } from './health-route.ts';
import { registerJsonRoute } from './json-route.ts';
import { openApiOptions } from './openapi-document.ts';
import { ChatResponse, EmbedResponse, GatewayHealth, JsonResponse, SHARED_SCHEMAS } from './schemas.ts';
import { traceRequests } from './trace-requests.ts';
import type { TypedInstance } from './typed-instance.ts';
import { registerUsageRoute } from './usage-route.ts';

/**
 * A vendor-compatible front door (`gateway/doors/`): its routes, registered inside the
 * authenticated /v1 scope. Handed in by the application rather than imported here, because a
 * door builds on this folder's plumbing (the run's start, the stream writer) and the folders of
 * gateway/ import each other in one direction only.
 */
export type FrontDoorRegistration = (v1: TypedInstance, deps: GatewayDeps) => Promise<void>;

export interface GatewayAppDeps extends GatewayDeps {
  storage: Storage;
  logger: Logger;
  verifier: CredentialVerifier;
  frontDoors?: readonly FrontDoorRegistration[];
  /** Both surfaces' metrics; undefined when metrics are off (then /metrics is a 404). */
  metricsRegistry?: MetricsRegistry | undefined;
  /** Undefined unless an OTLP endpoint is configured. */
  tracing?: GatewayTracing | undefined;
  refusals: RefusalCounter;
}

/**
 * Surface A: GET /health, GET /openapi.json, GET /metrics, the dashboard and /admin/api (with
 * ADMIN_TOKEN), and the authenticated /v1 inference routes.
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

  registerHealthRoute(app, deps.config);
  registerAdmin(app, {
    adminToken: deps.config.adminToken,
    publicUrl: deps.config.publicGatewayUrl,
    storage: deps.storage,
    recorder: deps.recorder,
    refusals: deps.refusals,
    limiter: deps.limiter,
    now: () => deps.clock.now(),
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  if (deps.metricsRegistry !== undefined)
    registerMetricsRoute(app, deps.metricsRegistry, deps.config.metrics.token);

  await app.register(async (untyped) => {
    const v1 = untyped.withTypeProvider<TypeBoxTypeProvider>();
    v1.setErrorHandler((error, request, reply) => {
      // The client left: nobody reads the answer, and it is no server fault (the ledger says 499).
      if (error instanceof ClientClosedError) {
        request.log.info('client closed the request before the answer');
        return reply.code(CLIENT_CLOSED_STATUS).send();
      }
      return respondWithError(error, request, reply);
    });
    if (deps.tracing !== undefined) traceRequests(v1, deps.tracing);
    v1.addHook('onRequest', createAuthHook(deps.verifier));
    countRequestsWithoutRun(v1, deps.metrics);
    // Back-pressure: when the usage ledger falls behind, new work waits instead of rows being
    // dropped, for a bounded time; then it is refused with a 503 (see UsageRecorder.whenWritable).
    v1.addHook('preHandler', (_request, _reply, done) => {
      const backlog = deps.recorder.whenWritable();
      if (backlog === undefined) done();
      else void backlog.then(() => done(), done);
    });
    registerChatRoute(v1, deps);
    registerEmbedRoute(v1, deps);
    registerJsonRoute(v1, deps);
    registerUsageRoute(v1, deps);
    for (const registerDoor of deps.frontDoors ?? []) await registerDoor(v1, deps);
  });
  return app;
}
