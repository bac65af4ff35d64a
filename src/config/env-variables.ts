import {
  MAIL_TRANSPORTS,
  NEWSLETTER_WEBHOOK_MODES,
  PROVIDER_SLOTS,
  type ProviderSlot,
} from './config-file-schema.ts';
import { boolean, commaList, decimal, integer, oneOf, type Parser, text } from './env-parsers.ts';
import { parseSurfaces, parseTrustProxy } from './network-settings.ts';
import { parseOtlpProtocol, TRACE_SAMPLERS } from './observability-settings.ts';
import { parseAppSeeds } from './parse-apps.ts';
import { parseDeployments } from './parse-deployments.ts';
import { parseMcpServers } from './parse-mcp-servers.ts';
import { parseWorkers } from './parse-workers.ts';
import { PROVIDER_KINDS } from './provider-kinds.ts';
import type { SettingAt, SettingPath } from './setting-path.ts';
import { BALANCE_STRATEGIES, LOG_LEVELS } from './settings-schema.ts';

/** One environment variable: the file setting it overrides and how its text becomes that setting. */
export interface EnvVariable<P extends SettingPath = SettingPath> {
  name: string;
  path: P;
  parse: Parser<SettingAt<P>>;
  /**
   * For lists and maps the environment adds to rather than replaces (GATEWAY_APPS; MCP_SERVERS,
   * whose entries replace the file's servers of the same name).
   */
  appends?: true;
}

function variable<P extends SettingPath>(
  name: string,
  path: P,
  parse: Parser<SettingAt<P>>,
  appends?: true,
): EnvVariable {
  return (appends ? { name, path, parse, appends } : { name, path, parse }) as EnvVariable;
}

/** Names the YAML file. It is read before every other variable, so it has no path of its own. */
export const CONFIG_FILE_VARIABLE = 'CONFIG_FILE';

const MAX_CONNECTION_MS = 3_600_000;

/** `PROVIDER_A_KIND` … for one slot. */
function providerVariables(slot: ProviderSlot): EnvVariable[] {
  const prefix = providerPrefix(slot);
  return [
    variable(`${prefix}KIND`, `providers.${slot}.kind`, oneOf(PROVIDER_KINDS)),
    variable(`${prefix}BASE_URL`, `providers.${slot}.baseUrl`, text),
    variable(`${prefix}API_KEY`, `providers.${slot}.apiKey`, text),
    variable(`${prefix}CHAT_MODEL`, `providers.${slot}.chatModel`, text),
    variable(`${prefix}EMBED_MODEL`, `providers.${slot}.embedModel`, text),
    variable(`${prefix}STRATEGY`, `providers.${slot}.strategy`, oneOf(BALANCE_STRATEGIES)),
    variable(`${prefix}DEPLOYMENTS`, `providers.${slot}.deployments`, parseDeployments),
    variable(`${prefix}REGION`, `providers.${slot}.region`, text),
    variable(`${prefix}PROJECT`, `providers.${slot}.project`, text),
    variable(`${prefix}LOCATION`, `providers.${slot}.location`, text),
    variable(`${prefix}API_VERSION`, `providers.${slot}.apiVersion`, text),
    variable(`${prefix}CREDENTIALS_FILE`, `providers.${slot}.credentialsFile`, text),
  ];
}

/** `PROVIDER_A_` for provider-a: the prefix of the slot's variables, also used in error messages. */
export function providerPrefix(slot: ProviderSlot): string {
  return `PROVIDER_${slot.slice(-1).toUpperCase()}_`;
}

/**
 * Every environment variable the configuration reads besides CONFIG_FILE, each overriding one
 * setting of the YAML file (docs/configuration.md lists them all; a test holds the two together).
 * The bounds here are the environment's own where they differ from the file's.
 */
export const ENV_VARIABLES: readonly EnvVariable[] = [
  variable('NODE_ENV', 'environment', text),
  variable('HOST', 'host', text),
  variable('GATEWAY_PORT', 'gatewayPort', integer(0, 65535)),
  variable('SITE_PORT', 'sitePort', integer(0, 65535)),
  variable('SURFACES', 'surfaces', parseSurfaces),
  variable('DATA_DIR', 'dataDir', text),
  variable('DATABASE_URL', 'databaseUrl', text),
  variable('REDIS_URL', 'redisUrl', text),
  variable('REDIS_KEY_PREFIX', 'redisKeyPrefix', text),
  variable('LOG_LEVEL', 'logLevel', oneOf(LOG_LEVELS)),
  variable('MAX_BODY_BYTES', 'maxBodyBytes', integer(1024, 1024 * 1024 * 1024)),
  variable('HEADERS_TIMEOUT_MS', 'connections.headersTimeoutMs', integer(0, MAX_CONNECTION_MS)),
  variable('REQUEST_TIMEOUT_MS', 'connections.requestTimeoutMs', integer(0, MAX_CONNECTION_MS)),
  // 0 would mean Fastify's default, so the least keep-alive is 1.
  variable('KEEP_ALIVE_TIMEOUT_MS', 'connections.keepAliveTimeoutMs', integer(1, MAX_CONNECTION_MS)),
  variable('TRUST_PROXY', 'trustProxy', parseTrustProxy),
  variable('PUBLIC_GATEWAY_URL', 'publicGatewayUrl', text),
  variable('PUBLIC_SITE_URL', 'publicSiteUrl', text),
  variable('ADMIN_TOKEN', 'adminToken', text),
  variable('GATEWAY_APPS', 'apps', (raw, name) => parseAppSeeds(raw, name), true),
  ...PROVIDER_SLOTS.flatMap(providerVariables),
  variable('GATEWAY_WORKERS', 'workers', parseWorkers),
  variable('SHUTDOWN_GRACE_MS', 'shutdownGraceMs', integer(0, 600_000)),
  variable('SITE_CONTENT_DIR', 'site.contentDir', text),
  variable('IDENTITY_DISCOVERY_FILE', 'site.identityDiscoveryFile', text),
  variable('NEWSLETTER_RATE_LIMIT_PER_MINUTE', 'site.newsletterRateLimitPerMinute', integer(1, 1_000_000)),
  variable(
    'SITE_MAX_CONCURRENT_REQUESTS_PER_CLIENT',
    'site.maxConcurrentRequestsPerClient',
    integer(0, 1_000_000),
  ),
  variable('MCP_ALLOWED_ORIGINS', 'site.mcpAllowedOrigins', commaList),
  variable('MAIL_TRANSPORT', 'site.mail.transport', oneOf(MAIL_TRANSPORTS)),
  variable('SMTP_URL', 'site.mail.smtpUrl', text),
  variable('MAIL_FROM', 'site.mail.from', text),
  variable('NEWSLETTER_WEBHOOK_URL', 'site.newsletterWebhook.url', text),
  variable('NEWSLETTER_WEBHOOK_MODE', 'site.newsletterWebhook.mode', oneOf(NEWSLETTER_WEBHOOK_MODES)),
  variable('NEWSLETTER_WEBHOOK_SECRET', 'site.newsletterWebhook.secret', text),
  variable('NEWSLETTER_IP_HASH_KEY', 'site.newsletterIpHashKey', text),
  variable('MCP_SERVERS', 'mcp.servers', parseMcpServers, true),
  variable('METRICS_ENABLED', 'metrics.enabled', boolean),
  variable('METRICS_TOKEN', 'metrics.token', text),
  // The OpenTelemetry SDK's own variables, read here so a bad value stops start-up (the exporter
  // still reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION itself).
  variable('OTEL_EXPORTER_OTLP_ENDPOINT', 'tracing.endpoint', text),
  variable('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'tracing.tracesEndpoint', text),
  variable('OTEL_EXPORTER_OTLP_PROTOCOL', 'tracing.protocol', parseOtlpProtocol),
  variable('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'tracing.tracesProtocol', parseOtlpProtocol),
  variable('OTEL_SERVICE_NAME', 'tracing.serviceName', text),
  variable('OTEL_TRACES_SAMPLER', 'tracing.sampler', oneOf(TRACE_SAMPLERS)),
  variable('OTEL_TRACES_SAMPLER_ARG', 'tracing.samplerArg', decimal(0, 1)),
];
