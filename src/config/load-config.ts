import { resolve } from 'node:path';
import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import type { ConfigFile, ProviderFileSettings } from './config-file-schema.ts';
import {
  type AppSeed,
  type Config,
  PROVIDER_KINDS,
  PROVIDER_SLOTS,
  type ProviderSettings,
  type ProviderSlot,
  type RouteCandidate,
  type RoutingSettings,
} from './config-types.ts';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_SIMULATED,
  DEFAULT_TIMEOUTS,
  DEFAULTS,
  KIND_DEFAULTS,
  SIMULATED_PRICES,
} from './defaults.ts';
import { parseAppSeeds } from './parse-apps.ts';
import { readConfigFile } from './read-config-file.ts';
import { readConnectionTimeouts } from './read-connection-timeouts.ts';
import { type Env, EnvReader } from './read-env.ts';
import { readAllowedOrigins, readTrustProxy } from './read-network-settings.ts';
import { readNewsletterSettings } from './read-newsletter-settings.ts';

/**
 * Builds the whole configuration once, at start-up: defaults, then the YAML file (CONFIG_FILE),
 * then environment variables, which win. This module is the only reader of the environment.
 */
export function loadConfig(env: Env = process.env, argv: readonly string[] = process.argv.slice(2)): Config {
  const read = new EnvReader(env);
  const configPath = read.string('CONFIG_FILE');
  const file: ConfigFile = configPath === undefined ? {} : readConfigFile(configPath);

  const gatewayPort = read.integer('GATEWAY_PORT', 0, 65535) ?? file.gatewayPort ?? DEFAULTS.gatewayPort;
  const sitePort = read.integer('SITE_PORT', 0, 65535) ?? file.sitePort ?? DEFAULTS.sitePort;
  const surfaces = readSurfaces(read, argv, file);
  if (surfaces.gateway && surfaces.site && gatewayPort === sitePort && gatewayPort !== 0) {
    throw new ConfigError('SITE_PORT', `must differ from GATEWAY_PORT (both are ${gatewayPort})`);
  }

  const providers = readProviders(read, file);
  const routing = readRouting(file, providers);
  const apps: AppSeed[] = [
    ...(file.apps ?? []),
    ...parseAppSeeds(read.string('GATEWAY_APPS'), 'GATEWAY_APPS'),
  ];

  const config: Config = {
    environment: read.string('NODE_ENV') ?? file.environment ?? 'development',
    host: read.string('HOST') ?? file.host ?? DEFAULTS.host,
    gatewayPort,
    sitePort,
    surfaces,
    dataDir: dataDirectory(read.string('DATA_DIR') ?? file.dataDir ?? DEFAULTS.dataDir),
    databaseUrl: checkUrl('DATABASE_URL', read.string('DATABASE_URL') ?? file.databaseUrl, [
      'postgres:',
      'postgresql:',
    ]),
    redisUrl: checkUrl('REDIS_URL', read.string('REDIS_URL') ?? file.redisUrl, ['redis:', 'rediss:']),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX') ?? file.redisKeyPrefix ?? 'gateway:',
    logLevel:
      read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) ??
      file.logLevel ??
      DEFAULTS.logLevel,
    maxBodyBytes:
      read.integer('MAX_BODY_BYTES', 1024, 1024 * 1024 * 1024) ?? file.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    connections: readConnectionTimeouts(read, file.connections ?? {}),
    trustProxy: readTrustProxy(read, file.trustProxy),
    publicGatewayUrl: publicUrl(
      'PUBLIC_GATEWAY_URL',
      read.string('PUBLIC_GATEWAY_URL') ?? file.publicGatewayUrl,
      gatewayPort,
    ),
    publicSiteUrl: publicUrl(
      'PUBLIC_SITE_URL',
      read.string('PUBLIC_SITE_URL') ?? file.publicSiteUrl,
      sitePort,
    ),
    apps,
    providers,
    routing,
    prices: { ...SIMULATED_PRICES, ...file.prices },
    retry: { ...DEFAULTS.retry, ...file.retry },
    circuit: { ...DEFAULTS.circuit, ...file.circuit },
    limits: { default: file.limits?.default ?? {}, apps: file.limits?.apps ?? {} },
    usage: { ...DEFAULTS.usage, ...file.usage },
    json: { ...DEFAULTS.json, ...file.json },
    maxEmbedInputs: file.maxEmbedInputs ?? DEFAULTS.maxEmbedInputs,
    streamKeepAliveMs: file.streamKeepAliveMs ?? DEFAULTS.streamKeepAliveMs,
    shutdownGraceMs:
      read.integer('SHUTDOWN_GRACE_MS', 0, 600_000) ?? file.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs,
    site: {
      contentDir: optionalPath(read.string('SITE_CONTENT_DIR') ?? file.site?.contentDir),
      identityDiscoveryFile: optionalPath(
        read.string('IDENTITY_DISCOVERY_FILE') ?? file.site?.identityDiscoveryFile,
      ),
      newsletterRateLimitPerMinute:
        read.integer('NEWSLETTER_RATE_LIMIT_PER_MINUTE', 1, 1_000_000) ??
        file.site?.newsletterRateLimitPerMinute ??
        DEFAULTS.newsletterRateLimitPerMinute,
      ...readNewsletterSettings(read, file.site ?? {}),
      mcpAllowedOrigins: readAllowedOrigins(read, file.site?.mcpAllowedOrigins),
      maxConcurrentRequestsPerClient:
        read.integer('SITE_MAX_CONCURRENT_REQUESTS_PER_CLIENT', 0, 1_000_000) ??
        file.site?.maxConcurrentRequestsPerClient ??
        DEFAULTS.siteMaxConcurrentRequestsPerClient,
    },
  };
  if (config.retry.maxDelayMs < config.retry.baseDelayMs) {
    throw new ConfigError('retry.maxDelayMs', 'must be at least retry.baseDelayMs');
  }
  return config;
}

function readSurfaces(read: EnvReader, argv: readonly string[], file: ConfigFile): Config['surfaces'] {
  const flag = argv.find((arg) => arg.startsWith('--surface='))?.slice('--surface='.length);
  const raw = flag ?? read.string('SURFACES');
  const setting = flag === undefined ? 'SURFACES' : '--surface';
  const names =
    raw === undefined
      ? (file.surfaces ?? ['gateway', 'site'])
      : raw.split(',').map((s) => s.trim().toLowerCase());
  const valid = ['gateway', 'site', 'both'];
  const unknown = names.find((name) => !valid.includes(name));
  if (unknown !== undefined || names.length === 0) {
    throw new ConfigError(setting, `must be gateway, site or both (got '${raw ?? ''}')`);
  }
  const both = names.includes('both');
  return { gateway: both || names.includes('gateway'), site: both || names.includes('site') };
}

function readProviders(read: EnvReader, file: ConfigFile): Record<ProviderSlot, ProviderSettings> {
  const entries = PROVIDER_SLOTS.map(
    (slot) => [slot, readProvider(read, slot, file.providers?.[slot] ?? {})] as const,
  );
  return Object.fromEntries(entries) as Record<ProviderSlot, ProviderSettings>;
}

function readProvider(read: EnvReader, slot: ProviderSlot, file: ProviderFileSettings): ProviderSettings {
  const prefix = `PROVIDER_${slot.slice(-1).toUpperCase()}_`;
  const kind = read.oneOf(`${prefix}KIND`, PROVIDER_KINDS) ?? file.kind ?? 'simulated';
  const defaults = KIND_DEFAULTS[kind];
  const baseUrl = read.string(`${prefix}BASE_URL`) ?? file.baseUrl ?? defaults.baseUrl;
  const apiKey = read.string(`${prefix}API_KEY`) ?? file.apiKey;
  if (baseUrl !== undefined) checkUrl(`${prefix}BASE_URL`, baseUrl, ['http:', 'https:']);
  if ((kind === 'anthropic' || kind === 'gemini') && apiKey === undefined) {
    throw new ConfigError(`${prefix}API_KEY`, `is required when ${prefix}KIND is ${kind}`);
  }
  if (kind === 'openai' && apiKey === undefined && baseUrl === KIND_DEFAULTS.openai.baseUrl) {
    throw new ConfigError(
      `${prefix}API_KEY`,
      'is required for api.openai.com (set a BASE_URL for a keyless local server)',
    );
  }
  const embedModel = read.string(`${prefix}EMBED_MODEL`) ?? file.embedModel ?? defaults.embedModel;
  if (kind === 'anthropic' && embedModel !== undefined) {
    throw new ConfigError(`${prefix}EMBED_MODEL`, 'cannot be set: Anthropic has no embeddings API');
  }
  return {
    slot,
    kind,
    baseUrl,
    apiKey,
    chatModel: read.string(`${prefix}CHAT_MODEL`) ?? file.chatModel ?? defaults.chatModel,
    embedModel,
    models: file.models ?? [],
    defaultMaxTokens: file.defaultMaxTokens ?? DEFAULT_MAX_TOKENS,
    timeouts: { ...DEFAULT_TIMEOUTS, ...file.timeouts },
    simulated: { ...DEFAULT_SIMULATED, ...file.simulated },
  };
}

function readRouting(file: ConfigFile, providers: Record<ProviderSlot, ProviderSettings>): RoutingSettings {
  const allSlots: RouteCandidate[] = PROVIDER_SLOTS.map((provider) => ({ provider }));
  const chat = file.routing?.chat ?? allSlots;
  const embed = file.routing?.embed ?? allSlots.filter((c) => providers[c.provider].embedModel !== undefined);
  for (const [index, candidate] of embed.entries()) {
    if (providers[candidate.provider].kind === 'anthropic') {
      throw new ConfigError(
        `routing.embed[${index}]`,
        `names ${candidate.provider}, which is Anthropic: it has no embeddings`,
      );
    }
  }
  return { chat, embed, tasks: file.routing?.tasks ?? {} };
}

function publicUrl(setting: string, value: string | undefined, port: number): string {
  const url = checkUrl(setting, value, ['http:', 'https:']) ?? `http://localhost:${port}`;
  return url.replace(/\/+$/, '');
}

/** ':memory:' keeps the embedded database in memory (tests); anything else is a directory. */
function dataDirectory(value: string): string {
  return value === ':memory:' ? value : resolve(value);
}

function optionalPath(value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolve(value);
}
