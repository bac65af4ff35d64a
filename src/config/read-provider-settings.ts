import type { TObject } from 'typebox';
import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import {
  type ConfigFile,
  PROVIDER_SLOTS,
  type ProviderSlot,
  type RouteCandidate,
} from './config-file-schema.ts';
import type { RoutingSettings } from './config-types.ts';
import type { Env } from './env-parsers.ts';
import { providerPrefix } from './env-variables.ts';
import { PROVIDER_KIND_ROWS, type ProviderKind, type ProviderKindRow } from './provider-kinds.ts';
import type { SlotSettings } from './provider-settings.ts';
import { readCloudSettings, readModelMap } from './read-cloud-settings.ts';
import { withDefaults } from './read-defaults.ts';
import { readDeployments, slotModels } from './read-deployments.ts';
import { ProviderCommonSchema, SlotBalancingSchema } from './settings-schema.ts';

type ProviderInput = NonNullable<NonNullable<ConfigFile['providers']>[ProviderSlot]>;

/** `fromEnv`: which variable set a setting's path, so errors name what the operator wrote. */
export function readProviders(
  settings: ConfigFile,
  fromEnv: ReadonlyMap<string, string> = new Map(),
  env: Env = {},
): Record<ProviderSlot, SlotSettings> {
  const entries = PROVIDER_SLOTS.map(
    (slot) => [slot, readProvider(slot, settings.providers?.[slot] ?? {}, fromEnv, env)] as const,
  );
  return Object.fromEntries(entries) as Record<ProviderSlot, SlotSettings>;
}

/**
 * One slot: the kind's row (provider-kinds.ts) gives the defaults and says whether a key is
 * needed and whether the kind can embed; errors name the slot's environment variables. A slot
 * that lists deployments has its keys checked per deployment (read-deployments.ts) instead.
 */
function readProvider(
  slot: ProviderSlot,
  given: ProviderInput,
  fromEnv: ReadonlyMap<string, string>,
  env: Env,
): SlotSettings {
  const prefix = providerPrefix(slot);
  const kind: ProviderKind = given.kind ?? 'simulated';
  const row: ProviderKindRow = PROVIDER_KIND_ROWS[kind];
  const baseUrl = given.baseUrl ?? row.baseUrl;
  const apiKey = given.apiKey;
  if (baseUrl !== undefined) checkUrl(`${prefix}BASE_URL`, baseUrl, ['http:', 'https:']);
  const modelMap = readModelMap(given, undefined);
  const deployments = readDeployments(slot, given, kind, fromEnv, env, modelMap);
  // A slot of deployments calls only them, and each has had its key checked against its own URL.
  const ownUpstream = deployments.length === 0;
  if (ownUpstream && baseUrl === undefined && row.upstream === 'given')
    throw new ConfigError(`${prefix}BASE_URL`, `is required when ${prefix}KIND is ${kind}`);
  const slotPath = `providers.${slot}`;
  const cloud = ownUpstream
    ? readCloudSettings(slotPath, kind, given, undefined, apiKey !== undefined, env)
    : readCloudSettings(slotPath, 'simulated', given, undefined, true, env);
  if (ownUpstream && apiKey === undefined && row.apiKey === 'always') {
    throw new ConfigError(`${prefix}API_KEY`, `is required when ${prefix}KIND is ${kind}`);
  }
  if (
    ownUpstream &&
    apiKey === undefined &&
    row.apiKey === 'at-default-base-url' &&
    baseUrl === row.baseUrl
  ) {
    const host = new URL(baseUrl as string).host;
    throw new ConfigError(
      `${prefix}API_KEY`,
      `is required for ${host} (set a BASE_URL for a keyless local server)`,
    );
  }
  const embedModel = given.embedModel ?? row.embedModel;
  if (!row.capabilities.embed && embedModel !== undefined) {
    throw new ConfigError(`${prefix}EMBED_MODEL`, `cannot be set: ${row.vendor} has no embeddings API`);
  }
  const ownSchema: TObject | undefined = 'settings' in row ? row.settings : undefined;
  const ownBlock = (given as Record<string, object | undefined>)[kind];
  const own = ownSchema === undefined ? {} : { [kind]: withDefaults(ownSchema, ownBlock) };
  // The checks above are the row's rules, so this is the shape KindSettings<kind> derives from it.
  return {
    slot,
    kind,
    baseUrl,
    apiKey,
    chatModel: given.chatModel ?? row.chatModel,
    embedModel,
    models: slotModels(given.models ?? [], deployments),
    ...withDefaults(ProviderCommonSchema, given),
    ...withDefaults(SlotBalancingSchema, given),
    deployments,
    cloud,
    modelMap,
    ...own,
  } as SlotSettings;
}

export function readRouting(
  settings: ConfigFile,
  providers: Record<ProviderSlot, SlotSettings>,
): RoutingSettings {
  const allSlots: RouteCandidate[] = PROVIDER_SLOTS.map((provider) => ({ provider }));
  const chat = settings.routing?.chat ?? allSlots;
  const embed =
    settings.routing?.embed ?? allSlots.filter((c) => providers[c.provider].embedModel !== undefined);
  for (const [index, candidate] of embed.entries()) {
    const row = PROVIDER_KIND_ROWS[providers[candidate.provider].kind];
    if (!row.capabilities.embed) {
      throw new ConfigError(
        `routing.embed[${index}]`,
        `names ${candidate.provider}, which is ${row.vendor}: it has no embeddings`,
      );
    }
  }
  return { chat, embed, tasks: settings.routing?.tasks ?? {} };
}
