import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import type { ConfigFile, ProviderSlot } from './config-file-schema.ts';
import { PROVIDER_KIND_ROWS, type ProviderKind, type ProviderKindRow } from './provider-kinds.ts';
import type { DeploymentSettings } from './provider-settings.ts';
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
  kind: ProviderKind,
  fromEnv: ReadonlyMap<string, string>,
): DeploymentSettings[] {
  const listed = given.deployments;
  if (listed === undefined) return [];
  const path = `providers.${slot}.deployments`;
  const variable = fromEnv.get(path);
  const row: ProviderKindRow = PROVIDER_KIND_ROWS[kind];
  if (row.baseUrl === undefined) {
    throw new ConfigError(
      variable ?? path,
      `cannot be set: ${row.vendor} has no upstream to spread calls over`,
    );
  }
  const seen = new Set<string>();
  const deployments = listed.map((entry, index): DeploymentSettings => {
    const where = variable === undefined ? `${path}.${index}` : `${variable} (${entry.name})`;
    const field = (name: string) => (variable === undefined ? `${where}.${name}` : where);
    if (seen.has(entry.name))
      throw new ConfigError(field('name'), `'${entry.name}' is listed twice in ${slot}`);
    seen.add(entry.name);
    checkUrl(field('baseUrl'), entry.baseUrl, ['http:', 'https:'], { requireHost: true });
    const apiKey = entry.apiKey ?? given.apiKey;
    checkDeploymentKey(field('apiKey'), kind, row, entry.baseUrl, apiKey);
    if (entry.models !== undefined && entry.models.length === 0) {
      throw new ConfigError(
        field('models'),
        'lists no model (leave it out to serve every model of the slot)',
      );
    }
    return {
      name: entry.name,
      baseUrl: entry.baseUrl,
      apiKey,
      weight: entry.weight ?? DEFAULT_WEIGHT,
      region: entry.region,
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
  baseUrl: string,
  apiKey: string | undefined,
): void {
  if (apiKey !== undefined) return;
  if (row.apiKey === 'always')
    throw new ConfigError(setting, `is required for ${kind} (or the slot's apiKey)`);
  if (row.apiKey === 'at-default-base-url' && baseUrl.replace(/\/+$/, '') === row.baseUrl) {
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
