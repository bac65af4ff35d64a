import { checkUrl } from './check-url.ts';
import type { ModelMap } from './cloud-settings.ts';
import { ConfigError } from './config-error.ts';
import type { ConfigFile, ProviderSlot } from './config-file-schema.ts';
import type { Env } from './env-parsers.ts';
import { PROVIDER_KIND_ROWS, type ProviderKind, type ProviderKindRow } from './provider-kinds.ts';
import type { DeploymentSettings } from './provider-settings.ts';
import { readCloudSettings, readModelMap } from './read-cloud-settings.ts';
import { DeploymentSchema } from './settings-schema.ts';

type ProviderInput = NonNullable<NonNullable<ConfigFile['providers']>[ProviderSlot]>;

const DEFAULT_WEIGHT = (DeploymentSchema.properties.weight as { default?: number }).default as number;

/**
 * A slot's deployments (CONTRACT 5.6), each checked as a slot's own upstream would be: its base
 * URL, and its key by the kind's rule (a deployment without `apiKey` takes the slot's). Names are
 * unique in the slot. None listed: an empty list, and the slot's own upstream is its one
 * deployment. Errors name the file's path or the environment variable, and never a key.
 */
export function readDeployments(
  slot: ProviderSlot,
  given: ProviderInput,
  slotKind: ProviderKind,
  fromEnv: ReadonlyMap<string, string>,
  env: Env = {},
  slotModelMap: ModelMap = {},
): DeploymentSettings[] {
  const listed = given.deployments;
  if (listed === undefined) return [];
  const path = `providers.${slot}.deployments`;
  const variable = fromEnv.get(path);
  const slotRow: ProviderKindRow = PROVIDER_KIND_ROWS[slotKind];
  if (slotRow.upstream === 'none' && listed.every((entry) => entry.kind === undefined)) {
    throw new ConfigError(
      variable ?? path,
      `cannot be set: ${slotRow.vendor} has no upstream to spread calls over`,
    );
  }
  const slotCloud = readCloudSettings(`providers.${slot}`, 'simulated', given, undefined, true, env);
  const seen = new Set<string>();
  const deployments = listed.map((entry, index): DeploymentSettings => {
    const where = variable === undefined ? `${path}.${index}` : `${variable} (${entry.name})`;
    const field = (name: string) => (variable === undefined ? `${where}.${name}` : where);
    if (seen.has(entry.name))
      throw new ConfigError(field('name'), `'${entry.name}' is listed twice in ${slot}`);
    seen.add(entry.name);
    // A deployment of its own kind (CONTRACT 6.4) takes the slot's key only when the kinds agree.
    const kind = entry.kind ?? slotKind;
    const row: ProviderKindRow = PROVIDER_KIND_ROWS[kind];
    if (row.upstream === 'none')
      throw new ConfigError(field('kind'), `cannot be ${kind}: it has no upstream`);
    const baseUrl = entry.baseUrl;
    if (baseUrl === undefined && row.upstream !== 'derived')
      throw new ConfigError(field('baseUrl'), `is required for ${kind}`);
    if (baseUrl !== undefined)
      checkUrl(field('baseUrl'), baseUrl, ['http:', 'https:'], { requireHost: true });
    const apiKey = entry.apiKey ?? (kind === slotKind ? given.apiKey : undefined);
    checkDeploymentKey(field('apiKey'), kind, row, baseUrl, apiKey);
    const cloud = readCloudSettings(where, kind, entry, slotCloud, apiKey !== undefined, env);
    if (entry.models !== undefined && entry.models.length === 0) {
      throw new ConfigError(
        field('models'),
        'lists no model (leave it out to serve every model of the slot)',
      );
    }
    return {
      name: entry.name,
      kind,
      baseUrl,
      apiKey,
      cloud,
      modelMap: readModelMap(entry, slotModelMap),
      weight: entry.weight ?? DEFAULT_WEIGHT,
      region: cloud.region,
      models: entry.models,
    };
  });
  if ((given.strategy ?? 'weighted') === 'weighted' && deployments.every((d) => d.weight === 0)) {
    throw new ConfigError(
      variable ?? path,
      'needs a deployment with a weight above 0 for the weighted strategy',
    );
  }
  return deployments;
}

/** The kind's key rule for one deployment (the slot's own is checked the same way in read-provider-settings.ts). */
function checkDeploymentKey(
  setting: string,
  kind: ProviderKind,
  row: ProviderKindRow,
  baseUrl: string | undefined,
  apiKey: string | undefined,
): void {
  if (apiKey !== undefined) return;
  if (row.apiKey === 'always')
    throw new ConfigError(setting, `is required for ${kind} (or the slot's apiKey)`);
  if (
    row.apiKey === 'at-default-base-url' &&
    baseUrl !== undefined &&
    baseUrl.replace(/\/+$/, '') === row.baseUrl
  ) {
    throw new ConfigError(setting, `is required for ${new URL(baseUrl).host} (or the slot's apiKey)`);
  }
}

/**
 * The models a slot is known to serve: its own list and every deployment's, so that a model only
 * a deployment lists still routes to the slot.
 */
export function slotModels(own: readonly string[], deployments: readonly DeploymentSettings[]): string[] {
  const models = [...own];
  for (const deployment of deployments) {
    for (const model of deployment.models ?? []) if (!models.includes(model)) models.push(model);
  }
  return models;
}
