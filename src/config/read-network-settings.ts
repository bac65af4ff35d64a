import { ConfigError } from './config-error.ts';
import type { EnvReader } from './read-env.ts';

/** Which proxies' X-Forwarded-For to believe: none, all, a hop count, or addresses and CIDRs. */
export type TrustProxy = boolean | number | string[];

/**
 * TRUST_PROXY: `false` (default: the socket's address is the client), `true` (believe every
 * proxy), a hop count (`1` behind one load balancer), or a comma-separated list of proxy
 * addresses and CIDR ranges. The client address feeds per-address limits (newsletter signups).
 */
export function readTrustProxy(read: EnvReader, fromFile: TrustProxy | undefined): TrustProxy {
  const raw = read.string('TRUST_PROXY');
  if (raw === undefined) return fromFile ?? false;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry));
  if (bad !== undefined || entries.length === 0) {
    throw new ConfigError(
      'TRUST_PROXY',
      'must be true, false, a hop count, or comma-separated addresses or CIDR ranges',
    );
  }
  return entries;
}

/**
 * MCP_ALLOWED_ORIGINS: browser origins (`https://app.example.com`) allowed to call POST /mcp on top
 * of the site's and gateway's own public origins and localhost.
 */
export function readAllowedOrigins(read: EnvReader, fromFile: readonly string[] | undefined): string[] {
  const raw = read.string('MCP_ALLOWED_ORIGINS');
  const entries =
    raw === undefined
      ? [...(fromFile ?? [])]
      : raw
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
  const setting = raw === undefined ? 'site.mcpAllowedOrigins' : 'MCP_ALLOWED_ORIGINS';
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        setting,
        `has '${entry}', which is not an origin such as https://app.example.com`,
      );
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(
        setting,
        `has '${entry}', which is not an origin such as https://app.example.com`,
      );
    }
    return url.origin;
  });
}
