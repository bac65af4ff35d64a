import { ConfigError } from './config-error.ts';
import type { DeploymentFileSettings } from './config-file-schema.ts';
import { DEPLOYMENT_NAME_PATTERN, DeploymentSchema } from './settings-schema.ts';

const NAME = new RegExp(DEPLOYMENT_NAME_PATTERN);
const MAX_WEIGHT = (DeploymentSchema.properties.weight as { maximum?: number }).maximum as number;
const ATTRIBUTES = ['apiKey', 'weight', 'region', 'models'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/**
 * The environment's form of a slot's deployments (PROVIDER_A_DEPLOYMENTS), for the simple case:
 * comma-separated `name=baseUrl` entries, each optionally followed by `;apiKey=…`, `;weight=…`,
 * `;region=…` and `;models=a|b`. A base URL or key holding `,` or `;` needs the YAML file.
 * Errors name the entry by position (and name), never a key.
 */
export function parseDeployments(raw: string, setting: string): DeploymentFileSettings[] {
  const deployments: DeploymentFileSettings[] = [];
  raw.split(',').forEach((text, index) => {
    if (text.trim() === '') return;
    const where = `entry ${index + 1}`;
    const [head = '', ...attributes] = text.split(';').map((part) => part.trim());
    const equals = head.indexOf('=');
    const name = equals === -1 ? head : head.slice(0, equals).trim();
    const baseUrl = equals === -1 ? '' : head.slice(equals + 1).trim();
    if (!NAME.test(name)) {
      throw new ConfigError(setting, `${where}: the name must be 1-64 letters, digits, '.', '_' or '-'`);
    }
    if (baseUrl === '') throw new ConfigError(setting, `${where} (${name}): expected name=baseUrl`);
    const deployment: DeploymentFileSettings = { name, baseUrl };
    const seen = new Set<string>();
    for (const attribute of attributes) {
      if (attribute === '') continue;
      const at = attribute.indexOf('=');
      const key = (at === -1 ? attribute : attribute.slice(0, at).trim()) as Attribute;
      const value = at === -1 ? '' : attribute.slice(at + 1).trim();
      if (!ATTRIBUTES.includes(key)) {
        throw new ConfigError(
          setting,
          `${where} (${name}): unknown attribute '${key.slice(0, 20)}' (known: ${ATTRIBUTES.join(', ')})`,
        );
      }
      if (seen.has(key)) throw new ConfigError(setting, `${where} (${name}): ${key} is given twice`);
      seen.add(key);
      if (value === '') throw new ConfigError(setting, `${where} (${name}): ${key} is empty`);
      setAttribute(deployment, key, value, `${where} (${name})`, setting);
    }
    deployments.push(deployment);
  });
  if (deployments.length === 0) throw new ConfigError(setting, 'lists no deployment');
  return deployments;
}

function setAttribute(
  deployment: DeploymentFileSettings,
  key: Attribute,
  value: string,
  where: string,
  setting: string,
): void {
  switch (key) {
    case 'apiKey':
      deployment.apiKey = value;
      return;
    case 'region':
      deployment.region = value;
      return;
    case 'models':
      deployment.models = value
        .split('|')
        .map((model) => model.trim())
        .filter(Boolean);
      return;
    case 'weight': {
      const weight = Number(value);
      if (!/^\d*\.?\d+$/.test(value) || weight > MAX_WEIGHT) {
        throw new ConfigError(
          setting,
          `${where}: weight must be a number from 0 to ${MAX_WEIGHT} (got '${value}')`,
        );
      }
      deployment.weight = weight;
    }
  }
}
