import type { CloudSettings, ModelMap } from './cloud-settings.ts';
import { ConfigError } from './config-error.ts';
import type { Env } from './env-parsers.ts';
import type { ProviderKind } from './provider-kinds.ts';

/** The cloud keys as the file gives them on a slot or a deployment (config-file-schema.ts). */
export interface CloudInput {
  apiVersion?: string | undefined;
  azure?: CloudSettings['azure'];
  region?: string | undefined;
  project?: string | undefined;
  location?: string | undefined;
  credentialsFile?: string | undefined;
  modelMap?: Record<string, string> | undefined;
}

/** The variable that may hold the Entra ID secret of every azure slot without its own (CONTRACT 6.9). */
export const AZURE_SECRET_VARIABLE = 'AZURE_CLIENT_SECRET';

/**
 * A slot's or deployment's cloud settings: its own keys over its slot's (`inherited`), the Entra
 * secret from AZURE_CLIENT_SECRET when the file gives none. Checked for the kind: an azure upstream
 * needs a key or an Entra client, a vertex one a project and location. Errors name the setting,
 * never a secret.
 */
export function readCloudSettings(
  where: string,
  kind: ProviderKind,
  given: CloudInput,
  inherited: CloudSettings | undefined,
  hasApiKey: boolean,
  env: Env,
): CloudSettings {
  const azure = given.azure ?? inherited?.azure;
  const cloud: CloudSettings = {
    apiVersion: given.apiVersion ?? inherited?.apiVersion,
    azure:
      azure === undefined || azure.clientSecret !== undefined
        ? azure
        : withEnvSecret(azure, env[AZURE_SECRET_VARIABLE]),
    // The AWS SDK's own variables name the region when the file does not (CONTRACT 6.9).
    region:
      given.region ??
      inherited?.region ??
      (kind === 'bedrock' ? (env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION']) : undefined),
    project: given.project ?? inherited?.project,
    location: given.location ?? inherited?.location,
    // Google's own variable names the key file when the file does not (CONTRACT 6.9); the
    // adapter reads it itself, to honour its token_uri.
    credentialsFile:
      given.credentialsFile ??
      inherited?.credentialsFile ??
      (kind === 'vertex' ? env['GOOGLE_APPLICATION_CREDENTIALS'] : undefined),
  };
  if (kind === 'azure' && !hasApiKey) {
    if (cloud.azure === undefined)
      throw new ConfigError(`${where}.apiKey`, 'or an `azure` Entra ID block is required for azure');
    if (cloud.azure.clientSecret === undefined)
      throw new ConfigError(`${where}.azure.clientSecret`, `or ${AZURE_SECRET_VARIABLE} is required`);
  }
  if (kind === 'bedrock' && cloud.region === undefined)
    throw new ConfigError(`${where}.region`, 'is required for bedrock (or AWS_REGION)');
  if (kind === 'vertex') {
    if (cloud.project === undefined) throw new ConfigError(`${where}.project`, 'is required for vertex');
    if (cloud.location === undefined) throw new ConfigError(`${where}.location`, 'is required for vertex');
  }
  return cloud;
}

function withEnvSecret(azure: NonNullable<CloudSettings['azure']>, secret: string | undefined) {
  return secret === undefined || secret === '' ? azure : { ...azure, clientSecret: secret };
}

/** A deployment's model map over its slot's. */
export function readModelMap(given: CloudInput, inherited: ModelMap | undefined): ModelMap {
  return { ...inherited, ...given.modelMap };
}

/** No cloud settings: the kinds that have none. */
export const NO_CLOUD: CloudSettings = {
  apiVersion: undefined,
  azure: undefined,
  region: undefined,
  project: undefined,
  location: undefined,
  credentialsFile: undefined,
};
