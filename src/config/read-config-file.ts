import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { ConfigError } from './config-error.ts';
import { type ConfigFile, ConfigFileSchema } from './config-file-schema.ts';

/**
 * The YAML parser and the file's compiled validator are made when a file is read: an instance
 * configured by its environment alone never holds them (about 5 MB of RSS; docs/performance.md).
 * `loadConfig` is synchronous, hence `require` (yaml ships CommonJS) rather than `import()`.
 */
const requireCommonJs = createRequire(import.meta.url);
let validator: ValidateFunction<ConfigFile> | undefined;
function fileValidator(): ValidateFunction<ConfigFile> {
  validator ??= new Ajv({ allErrors: false, strict: false }).compile<ConfigFile>(ConfigFileSchema);
  return validator;
}

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
  const { parse: parseYaml } = requireCommonJs('yaml') as typeof import('yaml');
  const validateFile = fileValidator();
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
