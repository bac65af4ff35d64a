export const PROVIDER_SLOTS = ['provider-a', 'provider-b', 'provider-c'] as const;
export type ProviderSlot = (typeof PROVIDER_SLOTS)[number];

export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini', 'simulated'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface SimulatedSettings {
  /** Delay before the first byte of every answer, in ms. */
  latencyMs: number;
  /** Delay between streamed chunks, in ms. */
  chunkDelayMs: number;
  /** Tokens per streamed chunk. */
  chunkTokens: number;
  /** Length of every embedding vector. */
  embedDimensions: number;
  /** Share of calls (0..1) that fail with a retryable 503, drawn deterministically per request. */
  failureRate: number;
  /** Whether a request's `metadata.simulated` may ask for latency or faults. */
  allowRequestDirectives: boolean;
}

export interface ProviderTimeouts {
  connectMs: number;
  firstByteMs: number;
  totalMs: number;
}

export interface ProviderSettings {
  slot: ProviderSlot;
  kind: ProviderKind;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  chatModel: string;
  embedModel: string | undefined;
  /** Models this slot is known to serve; used to route a request that names a model but no provider. */
  models: string[];
  /** Output-token cap sent when the caller gives no maxTokens and the upstream requires one. */
  defaultMaxTokens: number;
  timeouts: ProviderTimeouts;
  simulated: SimulatedSettings;
}

export interface RouteCandidate {
  provider: ProviderSlot;
  /** When omitted, the slot's default model for the operation. */
  model?: string;
}

export interface RoutingSettings {
  /** Candidates for chat and JSON requests without a known task. */
  chat: RouteCandidate[];
  /** Candidates for embeddings without an explicit provider. */
  embed: RouteCandidate[];
  /** Task name to ordered candidates. */
  tasks: Record<string, RouteCandidate[]>;
}

export interface ModelPrice {
  /** US dollars per million tokens. */
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok?: number;
  cacheWritePerMTok?: number;
}

export interface RetrySettings {
  /** Retries of one candidate after its first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Total time a request may spend on failing attempts before it is given up on. */
  budgetMs: number;
}

export interface JsonOutputSettings {
  /** Model calls for one /v1/json request, the first included. */
  maxAttempts: number;
  maxSchemaBytes: number;
  maxSchemaDepth: number;
  /** Compiled schemas kept in memory. */
  schemaCacheSize: number;
}

export interface CircuitSettings {
  /** Consecutive retryable failures that open a slot's circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one probe goes through. */
  cooldownMs: number;
}

/** Per-app limits; an absent field means no limit of that kind. */
export interface AppLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  concurrentRequests?: number;
  /** US dollars per UTC day. */
  dailyBudgetUsd?: number;
  /** US dollars per UTC calendar month. */
  monthlyBudgetUsd?: number;
}

export interface LimitSettings {
  /** Applies to every app without an entry of its own. */
  default: AppLimits;
  apps: Record<string, AppLimits>;
}

export interface UsageSettings {
  /** Ledger rows older than this are deleted; 0 keeps them forever. */
  retentionDays: number;
}

export interface AppSeed {
  name: string;
  secret: string;
}

export const MAIL_TRANSPORTS = ['none', 'log', 'smtp'] as const;
export type MailTransportKind = (typeof MAIL_TRANSPORTS)[number];

export interface MailSettings {
  /** `none`: no mail, so newsletter signups are single opt-in; `log`: mails go to the log (local use). */
  transport: MailTransportKind;
  /** `smtp://user:pass@host:587` or `smtps://…`; holds a password, so it is never logged. */
  smtpUrl: string | undefined;
  /** Sender of newsletter mails: `addr@example.com` or `Name <addr@example.com>`. */
  from: string;
}

export const NEWSLETTER_WEBHOOK_MODES = ['async', 'sync'] as const;

/** The optional mailing-list upstream told of every subscription change. */
export interface NewsletterWebhookSettings {
  url: string;
  /** `async`: through the outbox, retried in the background; `sync`: in the request, failure is a 500. */
  mode: (typeof NEWSLETTER_WEBHOOK_MODES)[number];
  /** Key of the HMAC-SHA256 body signature; never logged. */
  secret: string | undefined;
}

export interface SiteSettings {
  contentDir: string | undefined;
  identityDiscoveryFile: string | undefined;
  newsletterRateLimitPerMinute: number;
  mail: MailSettings;
  newsletterWebhook: NewsletterWebhookSettings | undefined;
  /** Key of the HMAC that pseudonymises client addresses in consent records; random per process when unset. */
  newsletterIpHashKey: string | undefined;
  /** Extra browser origins allowed to call POST /mcp. */
  mcpAllowedOrigins: string[];
  /** Requests in progress per client address (TRUST_PROXY-aware); more get 429. 0: no cap. */
  maxConcurrentRequestsPerClient: number;
}

/** How long a client may take, each in ms (0 turns one off); see docs/operations.md. */
export interface ConnectionTimeouts {
  /** From a connection's or request's first byte until its headers are complete. */
  headersTimeoutMs: number;
  /** From a request's first byte until its whole body is received; the answer is not limited. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection between two requests. */
  keepAliveTimeoutMs: number;
}

export interface Config {
  environment: string;
  host: string;
  gatewayPort: number;
  sitePort: number;
  surfaces: { gateway: boolean; site: boolean };
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Namespace of every Redis key, so deployments (and test runs) can share one Redis. */
  redisKeyPrefix: string;
  logLevel: string;
  maxBodyBytes: number;
  /** Slow-client limits of both surfaces. */
  connections: ConnectionTimeouts;
  /** Which proxies' X-Forwarded-For to believe (Fastify's trustProxy). */
  trustProxy: boolean | number | string[];
  publicGatewayUrl: string;
  publicSiteUrl: string;
  apps: AppSeed[];
  providers: Record<ProviderSlot, ProviderSettings>;
  routing: RoutingSettings;
  prices: Record<string, ModelPrice>;
  retry: RetrySettings;
  circuit: CircuitSettings;
  limits: LimitSettings;
  usage: UsageSettings;
  json: JsonOutputSettings;
  /** Largest number of strings in one /v1/embed request. */
  maxEmbedInputs: number;
  /** Idle time after which a stream gets a keep-alive comment. */
  streamKeepAliveMs: number;
  /** How long SIGTERM waits for in-flight requests before closing connections. */
  shutdownGraceMs: number;
  site: SiteSettings;
}
