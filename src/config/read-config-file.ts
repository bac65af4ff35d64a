import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './config-error.ts';
import { type ConfigFile, ConfigFileSchema } from './config-file-schema.ts';

const validateFile = new Ajv({ allErrors: false, strict: false }).compile<ConfigFile>(ConfigFileSchema);

/** Reads and checks the YAML config file; every error names the file and the key. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `CONFIG_FILE (${path})`,
      `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(
      `CONFIG_FILE (${path})`,
      `is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (!validateFile(parsed)) {
    const issue = validateFile.errors?.[0];
    const key = (issue?.instancePath ?? '').slice(1).replaceAll('/', '.') || '(top level)';
    const extra =
      issue?.params && 'additionalProperty' in issue.params ? ` '${issue.params.additionalProperty}'` : '';
    const allowed =
      issue?.params && 'allowedValues' in issue.params ? `: ${issue.params.allowedValues.join(', ')}` : '';
    throw new ConfigError(`${key} in ${path}`, `${issue?.message ?? 'is invalid'}${extra}${allowed}`);
  }
  return parsed;
}
