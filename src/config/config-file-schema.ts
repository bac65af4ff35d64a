import { type Static, type TObject, type TOptional, type TPartial, Type } from 'typebox';
import { StringEnum } from '../platform/schema-helpers.ts';
import { BatchSettingsSchema } from './batch-settings.ts';
import { CloudFileSchema } from './cloud-settings.ts';
import { GuardrailsFileSchema } from './guardrail-settings.ts';
import { McpAppAccessSchema, McpFileSchema } from './mcp-settings.ts';
import { MetricsSettingsSchema, TracingFileSchema } from './observability-settings.ts';
import {
  PROVIDER_KIND_ROWS,
  PROVIDER_KINDS,
  type ProviderKind,
  type ProviderKindRow,
} from './provider-kinds.ts';
import {
  CircuitSettingsSchema,
  ConnectionTimeoutsSchema,
  DeploymentSchema,
  JsonOutputSettingsSchema,
  ModelPriceSchema,
  ProviderCommonSchema,
  ProviderTimeoutsSchema,
  ResponseCacheOverrideSchema,
  ResponseCacheSettingsSchema,
  RetrySettingsSchema,
  ServerSettingsSchema,
  SiteLimitsSchema,
  SlotBalancingSchema,
  UsageSettingsSchema,
} from './settings-schema.ts';

/**
 * The YAML config file: the settings schemas (settings-schema.ts) with every key optional, plus
 * what has no default. Unknown keys are rejected so typos surface at start-up.
 */
const strict = { additionalProperties: false } as const;
const PositiveInt = Type.Integer({ minimum: 1 });

export const PROVIDER_SLOTS = ['provider-a', 'provider-b', 'provider-c'] as const;
export type ProviderSlot = (typeof PROVIDER_SLOTS)[number];
export const SURFACE_NAMES = ['gateway', 'site'] as const;
export const MAIL_TRANSPORTS = ['none', 'log', 'smtp'] as const;
export const NEWSLETTER_WEBHOOK_MODES = ['async', 'sync'] as const;

const Slot = StringEnum(PROVIDER_SLOTS);

const RouteCandidateSchema = Type.Object(
  { provider: Slot, model: Type.Optional(Type.String({ minLength: 1 })) },
  strict,
);
const CandidateList = Type.Array(RouteCandidateSchema, { minItems: 1 });
export type RouteCandidate = Static<typeof RouteCandidateSchema>;

type KindRows = typeof PROVIDER_KIND_ROWS;
type KindsWithSettings = {
  [K in ProviderKind]: KindRows[K] extends { settings: TObject } ? K : never;
}[ProviderKind];
type KindBlocks = {
  [K in KindsWithSettings]: TOptional<
    TPartial<KindRows[K] extends { settings: infer S extends TObject } ? S : never>
  >;
};

/** Each kind's own block (`providers.<slot>.simulated`), under the kind's name, from its row's `settings`. */
function kindBlocks(): KindBlocks {
  const blocks: Record<string, unknown> = {};
  for (const [kind, row] of Object.entries(PROVIDER_KIND_ROWS) as [ProviderKind, ProviderKindRow][]) {
    if (row.settings !== undefined) blocks[kind] = Type.Optional(Type.Partial(row.settings, strict));
  }
  return blocks as KindBlocks;
}

/** A deployment as the file gives it: its weight may be left to the default. */
const DeploymentFile = Type.Object(
  {
    ...DeploymentSchema.properties,
    weight: Type.Optional(DeploymentSchema.properties.weight),
    kind: Type.Optional(StringEnum(PROVIDER_KINDS)),
    ...CloudFileSchema,
  },
  strict,
);
export type DeploymentFileSettings = Static<typeof DeploymentFile>;

const ProviderFile = Type.Object(
  {
    kind: Type.Optional(StringEnum(PROVIDER_KINDS)),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    apiKey: Type.Optional(Type.String({ minLength: 1 })),
    chatModel: Type.Optional(Type.String({ minLength: 1 })),
    embedModel: Type.Optional(Type.String({ minLength: 1 })),
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    defaultMaxTokens: Type.Optional(ProviderCommonSchema.properties.defaultMaxTokens),
    timeouts: Type.Optional(Type.Partial(ProviderTimeoutsSchema, strict)),
    strategy: Type.Optional(SlotBalancingSchema.properties.strategy),
    deployments: Type.Optional(Type.Array(DeploymentFile, { minItems: 1, maxItems: 64 })),
    region: DeploymentSchema.properties.region,
    ...CloudFileSchema,
    ...kindBlocks(),
  },
  strict,
);

const AppLimitsSchema = Type.Object(
  {
    requestsPerMinute: Type.Optional(PositiveInt),
    tokensPerMinute: Type.Optional(PositiveInt),
    concurrentRequests: Type.Optional(PositiveInt),
    dailyBudgetUsd: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'US dollars per UTC day.' }),
    ),
    monthlyBudgetUsd: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'US dollars per UTC calendar month.' }),
    ),
    /** Limits of each end user (CONTRACT 6.5); a team's count across the team's apps. */
    perEndUser: Type.Optional(
      Type.Object(
        {
          requestsPerMinute: Type.Optional(PositiveInt),
          dailyBudgetUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
        },
        strict,
      ),
    ),
  },
  strict,
);
/** Per-app (and per-team) limits; an absent field means no limit of that kind. */
export type AppLimits = Static<typeof AppLimitsSchema>;

/** Names of teams, as of apps (1-64 letters, digits, '.', '_' or '-'). */
const EntityName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' });
const ModelAllowList = Type.Array(
  Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7e]+$' }),
  {
    maxItems: 200,
    description:
      'Model allow list: patterns (* wildcard) over slot/model, bare model names, routes and tasks.',
  },
);

const TeamSchema = Type.Object(
  {
    name: EntityName,
    limits: Type.Optional(AppLimitsSchema),
    models: Type.Optional(ModelAllowList),
    mcp: Type.Optional(McpAppAccessSchema),
    metadata: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 256 }))),
  },
  strict,
);
/** A team the configuration declares (CONTRACT 6.5): reset to this at every start. */
export type TeamSeed = Static<typeof TeamSchema>;

const AppSeedSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    secret: Type.String({ minLength: 1 }),
    /** The MCP tools the app may list and call (CONTRACT 5.7); none when absent. */
    mcp: Type.Optional(McpAppAccessSchema),
    /** The team the app belongs to (a `teams` entry, or a team made through the admin API). */
    team: Type.Optional(EntityName),
    /** The app's model allow list (CONTRACT 6.5), bounded by its team's. */
    models: Type.Optional(ModelAllowList),
  },
  strict,
);
export type AppSeed = Static<typeof AppSeedSchema>;

const NewsletterWebhookFile = Type.Object(
  {
    url: Type.String({ minLength: 1 }),
    mode: Type.Optional(StringEnum(NEWSLETTER_WEBHOOK_MODES)),
    secret: Type.Optional(Type.String({ minLength: 1 })),
  },
  strict,
);

const SiteFile = Type.Object(
  {
    ...Type.Partial(SiteLimitsSchema).properties,
    contentDir: Type.Optional(Type.String({ minLength: 1 })),
    identityDiscoveryFile: Type.Optional(Type.String({ minLength: 1 })),
    mcpAllowedOrigins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
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
    newsletterWebhook: Type.Optional(NewsletterWebhookFile),
    newsletterIpHashKey: Type.Optional(Type.String({ minLength: 1 })),
  },
  strict,
);

export const ConfigFileSchema = Type.Object(
  {
    ...Type.Partial(ServerSettingsSchema).properties,
    surfaces: Type.Optional(Type.Array(StringEnum(SURFACE_NAMES), { minItems: 1 })),
    databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
    redisUrl: Type.Optional(Type.String({ minLength: 1 })),
    connections: Type.Optional(Type.Partial(ConnectionTimeoutsSchema, strict)),
    trustProxy: Type.Optional(
      Type.Union([Type.Boolean(), Type.Integer({ minimum: 0 }), Type.Array(Type.String({ minLength: 1 }))]),
    ),
    publicGatewayUrl: Type.Optional(Type.String({ minLength: 1 })),
    publicSiteUrl: Type.Optional(Type.String({ minLength: 1 })),
    adminToken: Type.Optional(Type.String({ minLength: 1 })),
    apps: Type.Optional(Type.Array(AppSeedSchema)),
    teams: Type.Optional(Type.Array(TeamSchema, { maxItems: 10_000 })),
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
    prices: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelPriceSchema)),
    retry: Type.Optional(Type.Partial(RetrySettingsSchema, strict)),
    circuit: Type.Optional(Type.Partial(CircuitSettingsSchema, strict)),
    limits: Type.Optional(
      Type.Object(
        {
          default: Type.Optional(AppLimitsSchema),
          apps: Type.Optional(Type.Record(Type.String({ minLength: 1 }), AppLimitsSchema)),
        },
        strict,
      ),
    ),
    usage: Type.Optional(Type.Partial(UsageSettingsSchema, strict)),
    responseCache: Type.Optional(
      Type.Object(
        {
          ...Type.Partial(ResponseCacheSettingsSchema).properties,
          apps: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ResponseCacheOverrideSchema)),
          routes: Type.Optional(
            Type.Object(
              {
                chat: Type.Optional(ResponseCacheOverrideSchema),
                tasks: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ResponseCacheOverrideSchema)),
              },
              strict,
            ),
          ),
        },
        strict,
      ),
    ),
    json: Type.Optional(Type.Partial(JsonOutputSettingsSchema, strict)),
    batches: Type.Optional(Type.Partial(BatchSettingsSchema, strict)),
    site: Type.Optional(SiteFile),
    metrics: Type.Optional(Type.Partial(MetricsSettingsSchema, strict)),
    tracing: Type.Optional(TracingFileSchema),
    mcp: Type.Optional(McpFileSchema),
    guardrails: Type.Optional(GuardrailsFileSchema),
  },
  strict,
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProviderFileSettings = Static<typeof ProviderFile>;
export type SiteFileSettings = Static<typeof SiteFile>;
