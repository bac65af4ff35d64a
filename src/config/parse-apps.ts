import { ConfigError } from './config-error.ts';
import type { AppSeed } from './config-types.ts';

export const APP_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Parses `name:secret[,name:secret…]`. Error messages name the entry by position, never echo a secret. */
export function parseAppSeeds(raw: string | undefined, setting: string): AppSeed[] {
  if (raw === undefined) return [];
  const seeds: AppSeed[] = [];
  const seen = new Set<string>();
  raw.split(',').forEach((entry, index) => {
    const trimmed = entry.trim();
    if (trimmed === '') return;
    const colon = trimmed.indexOf(':');
    const name = colon === -1 ? trimmed : trimmed.slice(0, colon);
    const secret = colon === -1 ? '' : trimmed.slice(colon + 1);
    if (!APP_NAME_PATTERN.test(name)) {
      throw new ConfigError(
        setting,
        `entry ${index + 1}: the app name must be 1-64 letters, digits, '.', '_' or '-'`,
      );
    }
    if (secret === '') throw new ConfigError(setting, `entry ${index + 1} (${name}): expected name:secret`);
    if (seen.has(name)) throw new ConfigError(setting, `entry ${index + 1}: app '${name}' is listed twice`);
    seen.add(name);
    seeds.push({ name, secret });
  });
  return seeds;
}
