import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config-types.ts';
import { capConcurrentRequestsPerClient } from '../platform/client-concurrency-cap.ts';
import { type Clock, systemClock } from '../platform/clock.ts';
import { createBaseApp } from '../platform/fastify-base.ts';
import type { Logger } from '../platform/logger.ts';
import type { MetricsRegistry } from '../platform/metrics/metrics-registry.ts';
import type { LimitStore } from '../storage/limit-store.ts';
import type { Storage } from '../storage/ports.ts';
import { registerHealthRoutes } from './health/health-routes.ts';
import { buildNewsletter, type NewsletterOverrides } from './newsletter/build-newsletter.ts';
import { registerNewsletterRoutes } from './newsletter/newsletter-routes.ts';
import { registerSiteDiscovery } from './register-site-discovery.ts';
import { SiteMetrics } from './site-metrics.ts';

export interface SiteAppDeps {
  config: Config;
  logger: Logger;
  storage: Storage;
  clock?: Clock;
  /** Counters of the newsletter signup limit; shared with the gateway's (Redis with REDIS_URL). */
  limits?: LimitStore;
  /** Tests replace the mail transport and the outbox timing here. */
  newsletter?: NewsletterOverrides;
  /** The application's metrics (served by surface A); undefined when metrics are off. */
  metrics?: MetricsRegistry | undefined;
}

/** Surface B: the public site API. */
export async function buildSiteApp(deps: SiteAppDeps): Promise<FastifyInstance> {
  const app = createBaseApp({
    logger: deps.logger,
    maxBodyBytes: deps.config.maxBodyBytes,
    trustProxy: deps.config.trustProxy,
    timeouts: deps.config.connections,
  });
  const clock = deps.clock ?? systemClock;
  if (deps.config.site.maxConcurrentRequestsPerClient > 0)
    capConcurrentRequestsPerClient(app, deps.config.site.maxConcurrentRequestsPerClient);

  // --- site content, OpenAPI, MCP and discovery: first, as @fastify/swagger records only later routes ---
  const metrics = deps.metrics === undefined ? undefined : new SiteMetrics(deps.metrics);
  metrics?.countSignups(app);
  await registerSiteDiscovery(app, deps.config, {
    mcpAllowedOrigins: deps.config.site.mcpAllowedOrigins,
    ...(metrics === undefined ? {} : { onToolCall: metrics.toolCalled }),
  });
  // --- end site content, OpenAPI, MCP and discovery ---

  // --- newsletter and health: /api/newsletter…, /api/health, /up ---
  const newsletter = buildNewsletter({
    config: deps.config,
    subscribers: deps.storage.subscribers,
    limits: deps.limits,
    logger: deps.logger,
    clock,
    ...(deps.newsletter === undefined ? {} : { overrides: deps.newsletter }),
  });
  registerNewsletterRoutes(app, newsletter);
  registerHealthRoutes(app, {
    ping: () => deps.storage.ping(),
    outboxStats: newsletter.worker === undefined ? undefined : () => deps.storage.subscribers.outboxStats(),
    mailTransport: newsletter.mailTransport,
    doubleOptIn: newsletter.service.doubleOptIn,
    clock,
    pingTimeoutMs: 2_000,
    outbox: { pendingWarn: 100, oldestPendingWarnMs: 15 * 60_000 },
  });
  // The outbox worker runs while the app does; onClose comes after in-flight requests have finished.
  app.addHook('onReady', async () => newsletter.start());
  app.addHook('onClose', async () => newsletter.close());
  // --- end newsletter and health ---

  return app;
}
