import { type Static, Type } from 'typebox';
import { StringEnum } from '../platform/schema-helpers.ts';

/**
 * The settings that have a default, each described once: its type and bounds (which the YAML
 * file is checked against), its default, and what it means. The types the code uses are derived
 * from these schemas, the file schema is their partial view (config-file-schema.ts) and the
 * defaults are read out of them (read-defaults.ts).
 */
const strict = { additionalProperties: false } as const;
const Port = (options: { default: number }) => Type.Integer({ minimum: 0, maximum: 65535, ...options });
const PositiveInt = (options: { default?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 1, ...options });
const NonNegativeInt = (options: { default?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 0, ...options });

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Top-level settings of the process. */
export const ServerSettingsSchema = Type.Object(
  {
    environment: Type.String({
      minLength: 1,
      default: 'development',
      description: 'Reported by GET /health.',
    }),
    host: Type.String({ minLength: 1, default: '0.0.0.0' }),
    gatewayPort: Port({ default: 8787 }),
    sitePort: Port({ default: 8788 }),
    dataDir: Type.String({ minLength: 1, default: './data' }),
    redisKeyPrefix: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'gateway:',
      description: 'Namespace of every Redis key, so deployments (and test runs) can share one Redis.',
    }),
    logLevel: StringEnum(LOG_LEVELS, { default: 'info' }),
    maxBodyBytes: PositiveInt({ default: 4 * 1024 * 1024 }),
    maxEmbedInputs: PositiveInt({
      default: 2048,
      description: 'Largest number of strings in one /v1/embed request.',
    }),
    streamKeepAliveMs: PositiveInt({
      default: 15_000,
      description: 'Idle time after which a stream gets a keep-alive comment.',
    }),
    workers: Type.Union([Type.Literal('auto'), Type.Integer({ minimum: 1, maximum: 1024 })], {
      default: 'auto',
      description:
        'Worker processes serving both surfaces on one port each: `auto` is one per CPU (os.availableParallelism()), 1 a single process.',
    }),
    shutdownGraceMs: NonNegativeInt({
      default: 10_000,
      description: 'How long SIGTERM waits for in-flight requests before closing connections.',
    }),
  },
  strict,
);
export type ServerSettings = Static<typeof ServerSettingsSchema>;

/** How long a client may take, each in ms (0 turns one off); see docs/operations.md. */
export const ConnectionTimeoutsSchema = Type.Object(
  {
    // Headers are a few hundred bytes: a client that needs 15 s for them is stalling.
    headersTimeoutMs: NonNegativeInt({
      default: 15_000,
      description: "From a connection's or request's first byte until its headers are complete.",
    }),
    // 4 MiB in 60 s is 70 kB/s; it never limits the answer, so a long streamed answer is not cut.
    requestTimeoutMs: NonNegativeInt({
      default: 60_000,
      description: "From a request's first byte until its whole body is received.",
    }),
    // Behind a load balancer, idle keep-alive connections must outlive the balancer's timeout.
    keepAliveTimeoutMs: PositiveInt({
      default: 72_000,
      description: 'An idle keep-alive connection between two requests.',
    }),
  },
  strict,
);
export type ConnectionTimeouts = Static<typeof ConnectionTimeoutsSchema>;

export const RetrySettingsSchema = Type.Object(
  {
    maxRetries: Type.Integer({
      minimum: 0,
      maximum: 10,
      default: 2,
      description: 'Retries of one candidate after its first attempt.',
    }),
    baseDelayMs: NonNegativeInt({ default: 250 }),
    maxDelayMs: NonNegativeInt({ default: 4_000 }),
    budgetMs: PositiveInt({
      default: 25_000,
      description: 'Total time a request may spend on failing attempts before it is given up on.',
    }),
  },
  strict,
);
export type RetrySettings = Static<typeof RetrySettingsSchema>;

export const CircuitSettingsSchema = Type.Object(
  {
    failureThreshold: PositiveInt({
      default: 5,
      description: "Consecutive retryable failures that open a slot's circuit.",
    }),
    cooldownMs: PositiveInt({
      default: 30_000,
      description: 'How long an open circuit refuses calls before one probe goes through.',
    }),
  },
  strict,
);
export type CircuitSettings = Static<typeof CircuitSettingsSchema>;

export const UsageSettingsSchema = Type.Object(
  {
    retentionDays: NonNegativeInt({
      default: 400,
      description: 'Ledger rows older than this are deleted; 0 keeps them forever.',
    }),
    storedResponseDays: PositiveInt({
      default: 30,
      description: 'How long a Responses API answer stored with `store: true` is kept (CONTRACT 5.4).',
    }),
    storedResponsesPerApp: PositiveInt({
      default: 10_000,
      description: 'Most stored Responses an app keeps; its oldest beyond this are deleted.',
    }),
    storedResponseMaxBytes: PositiveInt({
      default: 8 * 1024 * 1024,
      description: 'Largest conversation (input items, as JSON) a request with `store: true` may keep.',
    }),
  },
  strict,
);
export type UsageSettings = Static<typeof UsageSettingsSchema>;

export const JsonOutputSettingsSchema = Type.Object(
  {
    maxAttempts: Type.Integer({
      minimum: 1,
      maximum: 10,
      default: 3,
      description: 'Model calls for one /v1/json request, the first included.',
    }),
    maxSchemaBytes: PositiveInt({ default: 64 * 1024 }),
    maxSchemaDepth: PositiveInt({ default: 48 }),
    schemaCacheSize: PositiveInt({ default: 500, description: 'Compiled schemas kept in memory.' }),
  },
  strict,
);
export type JsonOutputSettings = Static<typeof JsonOutputSettingsSchema>;

/** The response cache (CONTRACT 5.5; docs/configuration.md, "Response cache"). */
export const ResponseCacheSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description: "Caches every app's chat answers on every route; `apps` and `routes` override it.",
    }),
    ttlSeconds: Type.Integer({
      minimum: 1,
      maximum: 30 * 24 * 3600,
      default: 3600,
      description: 'How long an entry is served; `apps` and `routes` may set their own.',
    }),
    maxBytes: PositiveInt({
      default: 64 * 1024 * 1024,
      description: 'Bytes of entries kept in process (without REDIS_URL); the least recently used go first.',
    }),
    maxEntryBytes: PositiveInt({
      default: 1024 * 1024,
      description: 'A larger answer is not stored (in process or in Redis).',
    }),
    coalesce: Type.Boolean({
      default: false,
      description:
        'Identical requests that arrive while the first runs wait for its answer (one upstream call).',
    }),
  },
  strict,
);
export type ResponseCacheSettings = Static<typeof ResponseCacheSettingsSchema>;

/** An app's or a route's own response-cache settings; absent fields fall back (apps, then routes, then the defaults). */
export const ResponseCacheOverrideSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    ttlSeconds: Type.Optional(ResponseCacheSettingsSchema.properties.ttlSeconds),
  },
  strict,
);
export type ResponseCacheOverride = Static<typeof ResponseCacheOverrideSchema>;

/** The site's limits that have defaults; its other settings are optional (config-file-schema.ts). */
export const SiteLimitsSchema = Type.Object(
  {
    newsletterRateLimitPerMinute: PositiveInt({ default: 10 }),
    // Browsers open 6 connections per origin; 32 leaves room for several people behind one NAT.
    maxConcurrentRequestsPerClient: NonNegativeInt({
      default: 32,
      description: 'Requests in progress per client address (TRUST_PROXY-aware); more get 429. 0: no cap.',
    }),
  },
  strict,
);
export type SiteLimits = Static<typeof SiteLimitsSchema>;

export const ProviderTimeoutsSchema = Type.Object(
  {
    connectMs: PositiveInt({ default: 5_000 }),
    firstByteMs: PositiveInt({ default: 30_000 }),
    totalMs: PositiveInt({ default: 120_000 }),
  },
  strict,
);
export type ProviderTimeouts = Static<typeof ProviderTimeoutsSchema>;

export const SimulatedSettingsSchema = Type.Object(
  {
    latencyMs: NonNegativeInt({
      default: 0,
      description: 'Delay before the first byte of every answer, in ms.',
    }),
    chunkDelayMs: NonNegativeInt({ default: 0, description: 'Delay between streamed chunks, in ms.' }),
    chunkTokens: PositiveInt({ default: 4, description: 'Tokens per streamed chunk.' }),
    embedDimensions: Type.Integer({
      minimum: 2,
      maximum: 8192,
      default: 256,
      description: 'Length of every embedding vector.',
    }),
    failureRate: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0,
      description:
        'Share of calls (0..1) that fail with a retryable 503, drawn deterministically per request.',
    }),
    allowRequestDirectives: Type.Boolean({
      default: true,
      description: "Whether a request's `metadata.simulated` may ask for latency, faults or tool calls.",
    }),
  },
  strict,
);
export type SimulatedSettings = Static<typeof SimulatedSettingsSchema>;

/** Provider settings that do not depend on the kind. */
export const ProviderCommonSchema = Type.Object(
  {
    /** Output-token cap sent when the caller gives no maxTokens and the upstream requires one (Anthropic). */
    defaultMaxTokens: PositiveInt({ default: 4096 }),
    timeouts: ProviderTimeoutsSchema,
  },
  strict,
);

/** How a slot picks among its deployments (CONTRACT 5.6; docs/configuration.md, "Deployments"). */
export const BALANCE_STRATEGIES = ['weighted', 'least-busy', 'latency'] as const;
export type BalanceStrategy = (typeof BALANCE_STRATEGIES)[number];

export const SlotBalancingSchema = Type.Object(
  {
    strategy: StringEnum(BALANCE_STRATEGIES, {
      default: 'weighted',
      description:
        'weighted: at random in proportion to weight; least-busy: fewest calls in flight (across instances with Redis); latency: lowest recent time to first byte.',
    }),
  },
  strict,
);

/** Letters, digits, '.', '_', '-': a deployment's name is a metrics label and a ledger value. */
export const DEPLOYMENT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** One upstream of a slot (`providers.<slot>.deployments[]`); `name` is required. */
export const DeploymentSchema = Type.Object(
  {
    name: Type.String({
      pattern: DEPLOYMENT_NAME_PATTERN,
      description: 'Unique in its slot; names the deployment in the ledger, metrics and traces.',
    }),
    baseUrl: Type.Optional(
      Type.String({
        minLength: 1,
        description: "As a slot's baseUrl; required but for bedrock and vertex, which derive it.",
      }),
    ),
    apiKey: Type.Optional(
      Type.String({ minLength: 1, description: "The slot's apiKey when absent; never logged." }),
    ),
    weight: Type.Number({
      minimum: 0,
      maximum: 1_000_000,
      default: 1,
      description: 'Share of requests under `weighted`; 0: only while the others fail.',
    }),
    region: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "A label; bedrock's AWS region." }),
    ),
    models: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'The models it serves; absent: every model of its slot.',
      }),
    ),
  },
  strict,
);

export const ModelPriceSchema = Type.Object(
  {
    inputPerMTok: Type.Number({ minimum: 0, description: 'US dollars per million tokens.' }),
    outputPerMTok: Type.Number({ minimum: 0 }),
    cacheReadPerMTok: Type.Optional(
      Type.Number({ minimum: 0, description: 'Prompt-cache reads; the input rate when absent.' }),
    ),
    cacheWritePerMTok: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          'Prompt-cache writes kept 5 minutes, and writes whose upstream names no lifetime; the input rate when absent.',
      }),
    ),
    cacheWrite1hPerMTok: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Prompt-cache writes kept 1 hour; twice the input rate when absent.',
      }),
    ),
    contextWindow: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "The model's context window in tokens, for the overflow message when the upstream's gives no figure; the price data's when absent.",
      }),
    ),
  },
  strict,
);
export type ModelPrice = Static<typeof ModelPriceSchema>;
