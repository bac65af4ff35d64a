import { type Static, Type } from 'typebox';
import { StringEnum } from '../platform/schema-helpers.ts';
import { MAIL_TRANSPORTS, NEWSLETTER_WEBHOOK_MODES, PROVIDER_KINDS, PROVIDER_SLOTS } from './config-types.ts';

/** The YAML config file. Every key is optional; unknown keys are rejected so typos surface at start-up. */
const strict = { additionalProperties: false } as const;
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const PositiveInt = Type.Integer({ minimum: 1 });
const NonNegativeInt = Type.Integer({ minimum: 0 });
const Slot = StringEnum(PROVIDER_SLOTS);

const Candidate = Type.Object(
  { provider: Slot, model: Type.Optional(Type.String({ minLength: 1 })) },
  strict,
);
const CandidateList = Type.Array(Candidate, { minItems: 1 });

const ProviderFile = Type.Object(
  {
    kind: Type.Optional(StringEnum(PROVIDER_KINDS)),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    apiKey: Type.Optional(Type.String({ minLength: 1 })),
    chatModel: Type.Optional(Type.String({ minLength: 1 })),
    embedModel: Type.Optional(Type.String({ minLength: 1 })),
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    defaultMaxTokens: Type.Optional(PositiveInt),
    timeouts: Type.Optional(
      Type.Object(
        {
          connectMs: Type.Optional(PositiveInt),
          firstByteMs: Type.Optional(PositiveInt),
          totalMs: Type.Optional(PositiveInt),
        },
        strict,
      ),
    ),
    simulated: Type.Optional(
      Type.Object(
        {
          latencyMs: Type.Optional(NonNegativeInt),
          chunkDelayMs: Type.Optional(NonNegativeInt),
          chunkTokens: Type.Optional(PositiveInt),
          embedDimensions: Type.Optional(Type.Integer({ minimum: 2, maximum: 8192 })),
          failureRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          allowRequestDirectives: Type.Optional(Type.Boolean()),
        },
        strict,
      ),
    ),
  },
  strict,
);

const Price = Type.Object(
  {
    inputPerMTok: Type.Number({ minimum: 0 }),
    outputPerMTok: Type.Number({ minimum: 0 }),
    cacheReadPerMTok: Type.Optional(Type.Number({ minimum: 0 })),
    cacheWritePerMTok: Type.Optional(Type.Number({ minimum: 0 })),
  },
  strict,
);

const Limits = Type.Object(
  {
    requestsPerMinute: Type.Optional(PositiveInt),
    tokensPerMinute: Type.Optional(PositiveInt),
    concurrentRequests: Type.Optional(PositiveInt),
    dailyBudgetUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    monthlyBudgetUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  strict,
);

export const ConfigFileSchema = Type.Object(
  {
    environment: Type.Optional(Type.String({ minLength: 1 })),
    host: Type.Optional(Type.String({ minLength: 1 })),
    gatewayPort: Type.Optional(Port),
    sitePort: Type.Optional(Port),
    surfaces: Type.Optional(Type.Array(StringEnum(['gateway', 'site'] as const), { minItems: 1 })),
    dataDir: Type.Optional(Type.String({ minLength: 1 })),
    databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
    redisUrl: Type.Optional(Type.String({ minLength: 1 })),
    redisKeyPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    logLevel: Type.Optional(
      StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    ),
    maxBodyBytes: Type.Optional(PositiveInt),
    connections: Type.Optional(
      Type.Object(
        {
          headersTimeoutMs: Type.Optional(NonNegativeInt),
          requestTimeoutMs: Type.Optional(NonNegativeInt),
          keepAliveTimeoutMs: Type.Optional(PositiveInt),
        },
        strict,
      ),
    ),
    trustProxy: Type.Optional(
      Type.Union([Type.Boolean(), Type.Integer({ minimum: 0 }), Type.Array(Type.String({ minLength: 1 }))]),
    ),
    publicGatewayUrl: Type.Optional(Type.String({ minLength: 1 })),
    publicSiteUrl: Type.Optional(Type.String({ minLength: 1 })),
    apps: Type.Optional(
      Type.Array(
        Type.Object({ name: Type.String({ minLength: 1 }), secret: Type.String({ minLength: 1 }) }, strict),
      ),
    ),
    providers: Type.Optional(
      Type.Object(
        {
          'provider-a': Type.Optional(ProviderFile),
          'provider-b': Type.Optional(ProviderFile),
          'provider-c': Type.Optional(ProviderFile),
        },
        strict,
      ),
    ),
    routing: Type.Optional(
      Type.Object(
        {
          chat: Type.Optional(CandidateList),
          embed: Type.Optional(CandidateList),
          tasks: Type.Optional(Type.Record(Type.String({ minLength: 1 }), CandidateList)),
        },
        strict,
      ),
    ),
    prices: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Price)),
    retry: Type.Optional(
      Type.Object(
        {
          maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
          baseDelayMs: Type.Optional(NonNegativeInt),
          maxDelayMs: Type.Optional(NonNegativeInt),
          budgetMs: Type.Optional(PositiveInt),
        },
        strict,
      ),
    ),
    circuit: Type.Optional(
      Type.Object(
        { failureThreshold: Type.Optional(PositiveInt), cooldownMs: Type.Optional(PositiveInt) },
        strict,
      ),
    ),
    limits: Type.Optional(
      Type.Object(
        {
          default: Type.Optional(Limits),
          apps: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Limits)),
        },
        strict,
      ),
    ),
    usage: Type.Optional(Type.Object({ retentionDays: Type.Optional(NonNegativeInt) }, strict)),
    json: Type.Optional(
      Type.Object(
        {
          maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
          maxSchemaBytes: Type.Optional(PositiveInt),
          maxSchemaDepth: Type.Optional(PositiveInt),
          schemaCacheSize: Type.Optional(PositiveInt),
        },
        strict,
      ),
    ),
    maxEmbedInputs: Type.Optional(PositiveInt),
    streamKeepAliveMs: Type.Optional(PositiveInt),
    shutdownGraceMs: Type.Optional(NonNegativeInt),
    site: Type.Optional(
      Type.Object(
        {
          contentDir: Type.Optional(Type.String({ minLength: 1 })),
          identityDiscoveryFile: Type.Optional(Type.String({ minLength: 1 })),
          newsletterRateLimitPerMinute: Type.Optional(PositiveInt),
          mcpAllowedOrigins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
          maxConcurrentRequestsPerClient: Type.Optional(NonNegativeInt),
          mail: Type.Optional(
            Type.Object(
              {
                transport: Type.Optional(StringEnum(MAIL_TRANSPORTS)),
                smtpUrl: Type.Optional(Type.String({ minLength: 1 })),
                from: Type.Optional(Type.String({ minLength: 1 })),
              },
              strict,
            ),
          ),
          newsletterWebhook: Type.Optional(
            Type.Object(
              {
                url: Type.String({ minLength: 1 }),
                mode: Type.Optional(StringEnum(NEWSLETTER_WEBHOOK_MODES)),
                secret: Type.Optional(Type.String({ minLength: 1 })),
              },
              strict,
            ),
          ),
          newsletterIpHashKey: Type.Optional(Type.String({ minLength: 1 })),
        },
        strict,
      ),
    ),
  },
  strict,
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProviderFileSettings = Static<typeof ProviderFile>;
