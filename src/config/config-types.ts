import type { BatchSettings } from './batch-settings.ts';
import type {
  AppLimits,
  AppSeed,
  MAIL_TRANSPORTS,
  NEWSLETTER_WEBHOOK_MODES,
  ProviderSlot,
  RouteCandidate,
  TeamSeed,
} from './config-file-schema.ts';
import type { GuardrailSettings } from './guardrail-settings.ts';
import type { McpSettings } from './mcp-settings.ts';
import type { TrustProxy } from './network-settings.ts';
import type { MetricsSettings, TracingSettings } from './observability-settings.ts';
import type { SlotSettings } from './provider-settings.ts';
import type {
  CircuitSettings,
  ConnectionTimeouts,
  JsonOutputSettings,
  ModelPrice,
  ResponseCacheOverride,
  ResponseCacheSettings,
  RetrySettings,
  ServerSettings,
  SiteLimits,
  UsageSettings,
} from './settings-schema.ts';

/**
 * The loaded configuration. Its parts are the types of the schemas in settings-schema.ts and
 * config-file-schema.ts, re-exported here so the rest of the code has one place to import from.
 */
export type { AppLimits, AppSeed, ProviderSlot, RouteCandidate, TeamSeed } from './config-file-schema.ts';
export { MAIL_TRANSPORTS, NEWSLETTER_WEBHOOK_MODES, PROVIDER_SLOTS } from './config-file-schema.ts';
export type { McpServerSettings, McpSettings } from './mcp-settings.ts';
export type { MetricsSettings, TracingSettings } from './observability-settings.ts';
export type { ProviderCapabilities, ProviderKind } from './provider-kinds.ts';
export { PROVIDER_KINDS } from './provider-kinds.ts';
export type {
  DeploymentSettings,
  KindSettings,
  ProviderSettings,
  SettingsOfKind,
  SlotSettings,
} from './provider-settings.ts';
export type {
  BalanceStrategy,
  CircuitSettings,
  ConnectionTimeouts,
  JsonOutputSettings,
  ModelPrice,
  ProviderTimeouts,
  ResponseCacheOverride,
  ResponseCacheSettings,
  RetrySettings,
  SimulatedSettings,
  UsageSettings,
} from './settings-schema.ts';

export interface RoutingSettings {
  /** Candidates for chat and JSON requests without a known task. */
  chat: RouteCandidate[];
  /** Candidates for embeddings without an explicit provider. */
  embed: RouteCandidate[];
  /** Task name to ordered candidates. */
  tasks: Record<string, RouteCandidate[]>;
}

export interface LimitSettings {
  /** Applies to every app without an entry of its own. */
  default: AppLimits;
  apps: Record<string, AppLimits>;
}

/** The response cache (CONTRACT 5.5): the defaults, and each app's and route's own settings. */
export interface ResponseCacheConfig extends ResponseCacheSettings {
  apps: Record<string, ResponseCacheOverride>;
  /** `chat`: the default route (and requests that name a provider or an unknown task); `tasks`: each task's route. */
  routes: { chat: ResponseCacheOverride; tasks: Record<string, ResponseCacheOverride> };
}

export type MailTransportKind = (typeof MAIL_TRANSPORTS)[number];

export interface MailSettings {
  /** `none`: no mail, so newsletter signups are single opt-in; `log`: mails go to the log (local use). */
  transport: MailTransportKind;
  /** `smtp://user:pass@host:587` or `smtps://…`; holds a password, so it is never logged. */
  smtpUrl: string | undefined;
  /** Sender of newsletter mails: `addr@example.com` or `Name <addr@example.com>`. */
  from: string;
}

/** The optional mailing-list upstream told of every subscription change. */
export interface NewsletterWebhookSettings {
  url: string;
  /** `async`: through the outbox, retried in the background; `sync`: in the request, failure is a 500. */
  mode: (typeof NEWSLETTER_WEBHOOK_MODES)[number];
  /** Key of the HMAC-SHA256 body signature; never logged. */
  secret: string | undefined;
}

export interface SiteSettings extends SiteLimits {
  contentDir: string | undefined;
  identityDiscoveryFile: string | undefined;
  mail: MailSettings;
  newsletterWebhook: NewsletterWebhookSettings | undefined;
  /** Key of the HMAC that pseudonymises client addresses in consent records; random per process when unset. */
  newsletterIpHashKey: string | undefined;
  /** Extra browser origins allowed to call POST /mcp. */
  mcpAllowedOrigins: string[];
}

export interface Config extends Omit<ServerSettings, 'workers'> {
  /** Worker processes (CONTRACT 6.8): `auto` resolved to the CPUs; 1 is a single process. */
  workers: number;
  surfaces: { gateway: boolean; site: boolean };
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Slow-client limits of both surfaces. */
  connections: ConnectionTimeouts;
  /** Which proxies' X-Forwarded-For to believe (Fastify's trustProxy). */
  trustProxy: TrustProxy;
  publicGatewayUrl: string;
  /** Enables GET /dashboard and /admin/api/* on surface A; never logged. */
  adminToken: string | undefined;
  publicSiteUrl: string;
  apps: AppSeed[];
  /** Teams the configuration declares (CONTRACT 6.5), reset to it at start. */
  teams: TeamSeed[];
  providers: Record<ProviderSlot, SlotSettings>;
  routing: RoutingSettings;
  prices: Record<string, ModelPrice>;
  retry: RetrySettings;
  circuit: CircuitSettings;
  limits: LimitSettings;
  usage: UsageSettings;
  responseCache: ResponseCacheConfig;
  json: JsonOutputSettings;
  /** Files and batches (CONTRACT 6.7). */
  batches: BatchSettings;
  site: SiteSettings;
  metrics: MetricsSettings;
  /** Undefined unless an OTLP endpoint is configured: then spans are exported. */
  tracing: TracingSettings | undefined;
  /** The MCP gateway's upstream servers, bounds and allow lists (CONTRACT 5.7). */
  mcp: McpSettings;
  /** Named guards and what they are attached to (CONTRACT 6.6). */
  guardrails: GuardrailSettings;
}
