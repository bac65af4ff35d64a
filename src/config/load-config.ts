import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { applyEnvironment } from './apply-environment.ts';
import { BatchSettingsSchema } from './batch-settings.ts';
import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import { type ConfigFile, SURFACE_NAMES } from './config-file-schema.ts';
import type { Config, ResponseCacheConfig } from './config-types.ts';
import { type Env, readRaw } from './env-parsers.ts';
import { CONFIG_FILE_VARIABLE, ENV_VARIABLES } from './env-variables.ts';
import { checkAllowedOrigins, parseSurfaces } from './network-settings.ts';
import { readMetrics, readTracing } from './observability-settings.ts';
import { readKindModelPrices } from './provider-kinds.ts';
import { readConfigFile } from './read-config-file.ts';
import { readConnectionTimeouts } from './read-connection-timeouts.ts';
import { withDefaults } from './read-defaults.ts';
import { readGuardrailSettings } from './read-guardrail-settings.ts';
import { readMcpSettings } from './read-mcp-settings.ts';
import { readNewsletterSettings } from './read-newsletter-settings.ts';
import { readProviders, readRouting } from './read-provider-settings.ts';
import { readTeams } from './read-teams.ts';
import {
  CircuitSettingsSchema,
  JsonOutputSettingsSchema,
  ResponseCacheSettingsSchema,
  RetrySettingsSchema,
  ServerSettingsSchema,
  SiteLimitsSchema,
  UsageSettingsSchema,
} from './settings-schema.ts';

/**
 * Builds the whole configuration once, at start-up: defaults, then the YAML file (CONFIG_FILE),
 * then environment variables (ENV_VARIABLES), which win. This module is the only reader of the
 * environment.
 */
export function loadConfig(env: Env = process.env, argv: readonly string[] = process.argv.slice(2)): Config {
  const configPath = readRaw(env, CONFIG_FILE_VARIABLE);
  const file: ConfigFile = configPath === undefined ? {} : readConfigFile(configPath);
  // The command-line flag wins over SURFACES, which is then not read at all.
  const flag = argv.find((arg) => arg.startsWith('--surface='))?.slice('--surface='.length);
  const variables = flag === undefined ? ENV_VARIABLES : ENV_VARIABLES.filter((v) => v.name !== 'SURFACES');
  const { settings, fromEnv } = applyEnvironment(file, env, variables);

  const server = withDefaults(ServerSettingsSchema, settings);
  const surfaceNames =
    flag === undefined ? (settings.surfaces ?? [...SURFACE_NAMES]) : parseSurfaces(flag, '--surface');
  const surfaces = { gateway: surfaceNames.includes('gateway'), site: surfaceNames.includes('site') };
  const { gatewayPort, sitePort } = server;
  if (surfaces.gateway && surfaces.site && gatewayPort === sitePort && gatewayPort !== 0) {
    throw new ConfigError('SITE_PORT', `must differ from GATEWAY_PORT (both are ${gatewayPort})`);
  }
  const providers = readProviders(settings, fromEnv, env);
  const site = settings.site ?? {};

  const config: Config = {
    ...server,
    workers: server.workers === 'auto' ? availableParallelism() : server.workers,
    surfaces,
    dataDir: dataDirectory(server.dataDir),
    databaseUrl: checkUrl('DATABASE_URL', settings.databaseUrl, ['postgres:', 'postgresql:']),
    redisUrl: checkUrl('REDIS_URL', settings.redisUrl, ['redis:', 'rediss:']),
    connections: readConnectionTimeouts(settings.connections),
    trustProxy: settings.trustProxy ?? false,
    publicGatewayUrl: publicUrl('PUBLIC_GATEWAY_URL', settings.publicGatewayUrl, gatewayPort),
    publicSiteUrl: publicUrl('PUBLIC_SITE_URL', settings.publicSiteUrl, sitePort),
    adminToken: checkAdminToken(fromEnv.get('adminToken') ?? 'adminToken', settings.adminToken),
    apps: settings.apps ?? [],
    teams: readTeams(settings.teams, settings.apps),
    providers,
    routing: readRouting(settings, providers),
    prices: { ...readKindModelPrices(), ...settings.prices },
    retry: withDefaults(RetrySettingsSchema, settings.retry),
    circuit: withDefaults(CircuitSettingsSchema, settings.circuit),
    limits: { default: settings.limits?.default ?? {}, apps: settings.limits?.apps ?? {} },
    usage: withDefaults(UsageSettingsSchema, settings.usage),
    responseCache: readResponseCache(settings),
    json: withDefaults(JsonOutputSettingsSchema, settings.json),
    batches: withDefaults(BatchSettingsSchema, settings.batches),
    site: {
      ...withDefaults(SiteLimitsSchema, site),
      contentDir: optionalPath(site.contentDir),
      identityDiscoveryFile: optionalPath(site.identityDiscoveryFile),
      ...readNewsletterSettings(site),
      mcpAllowedOrigins: checkAllowedOrigins(
        fromEnv.get('site.mcpAllowedOrigins') ?? 'site.mcpAllowedOrigins',
        site.mcpAllowedOrigins ?? [],
      ),
    },
    metrics: readMetrics(settings.metrics),
    tracing: readTracing(settings.tracing),
    mcp: readMcpSettings(settings, fromEnv.has('mcp.servers') ? 'MCP_SERVERS or mcp.servers' : 'mcp.servers'),
    guardrails: readGuardrailSettings(settings.guardrails, Object.keys(settings.routing?.tasks ?? {})),
  };
  if (config.retry.maxDelayMs < config.retry.baseDelayMs) {
    throw new ConfigError('retry.maxDelayMs', 'must be at least retry.baseDelayMs');
  }
  return config;
}

/** The response cache's settings; a route entry must name a configured task (a typo would cache nothing). */
function readResponseCache(settings: ConfigFile): ResponseCacheConfig {
  const given = settings.responseCache ?? {};
  const tasks = given.routes?.tasks ?? {};
  for (const task of Object.keys(tasks)) {
    if (!Object.hasOwn(settings.routing?.tasks ?? {}, task)) {
      throw new ConfigError(`responseCache.routes.tasks.${task}`, 'names no task of routing.tasks');
    }
  }
  return {
    ...withDefaults(ResponseCacheSettingsSchema, given),
    apps: given.apps ?? {},
    routes: { chat: given.routes?.chat ?? {}, tasks },
  };
}

/** For the command-line tools: their arguments are their own, not the server's `--surface`. */
export function loadConfigWithoutArguments(): Config {
  return loadConfig(process.env, []);
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

/** An admin token guards every app's usage: long enough not to be guessed, and never echoed. */
function checkAdminToken(name: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.length < ADMIN_TOKEN_MIN_LENGTH || token.length > ADMIN_TOKEN_MAX_LENGTH || /\s/.test(token)) {
    throw new ConfigError(
      name,
      `must be ${ADMIN_TOKEN_MIN_LENGTH} to ${ADMIN_TOKEN_MAX_LENGTH} characters without spaces (try: openssl rand -hex 32)`,
    );
  }
  return token;
}

const ADMIN_TOKEN_MIN_LENGTH = 16;
const ADMIN_TOKEN_MAX_LENGTH = 256;
