import { McpLimitsSchema } from './mcp-settings.ts';
import { readDefaults } from './read-defaults.ts';
import {
  CircuitSettingsSchema,
  ConnectionTimeoutsSchema,
  JsonOutputSettingsSchema,
  ProviderCommonSchema,
  RetrySettingsSchema,
  ServerSettingsSchema,
  SimulatedSettingsSchema,
  SiteLimitsSchema,
  UsageSettingsSchema,
} from './settings-schema.ts';

/**
 * Every default, read out of the settings schemas (where each is written once), for code that
 * needs one without a loaded configuration (Fastify's base options in tests).
 */
export const DEFAULTS = {
  ...readDefaults(ServerSettingsSchema),
  connections: readDefaults(ConnectionTimeoutsSchema),
  retry: readDefaults(RetrySettingsSchema),
  circuit: readDefaults(CircuitSettingsSchema),
  usage: readDefaults(UsageSettingsSchema),
  json: readDefaults(JsonOutputSettingsSchema),
  site: readDefaults(SiteLimitsSchema),
  provider: readDefaults(ProviderCommonSchema),
  simulated: readDefaults(SimulatedSettingsSchema),
  mcp: readDefaults(McpLimitsSchema),
};
