import { ConfigError } from './config-error.ts';

/**
 * Checks a URL setting. Messages name the setting and never echo the value: URLs such as
 * DATABASE_URL or SMTP_URL carry passwords.
 */
export function checkUrl(
  setting: string,
  value: string | undefined,
  protocols: readonly string[],
  options: { requireHost?: boolean } = {},
): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(setting, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(setting, `must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`);
  }
  if (options.requireHost === true && url.hostname === '') throw new ConfigError(setting, 'must name a host');
  return value;
}
