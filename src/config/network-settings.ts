import { ConfigError } from './config-error.ts';
import { SURFACE_NAMES } from './config-file-schema.ts';
import { commaList, type Parser } from './env-parsers.ts';

/** Which proxies' X-Forwarded-For to believe: none, all, a hop count, or addresses and CIDRs. */
export type TrustProxy = boolean | number | string[];

/**
 * TRUST_PROXY: `false` (default: the socket's address is the client), `true` (believe every
 * proxy), a hop count (`1` behind one load balancer), or a comma-separated list of proxy
 * addresses and CIDR ranges. The client address feeds per-address limits (newsletter signups).
 */
export const parseTrustProxy: Parser<TrustProxy> = (raw, name) => {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = commaList(raw, name);
  const bad = entries.find((entry) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry));
  if (bad !== undefined || entries.length === 0) {
    throw new ConfigError(
      name,
      'must be true, false, a hop count, or comma-separated addresses or CIDR ranges',
    );
  }
  return entries;
};

type Surface = (typeof SURFACE_NAMES)[number];

/** SURFACES or `--surface=`: `gateway`, `site` or `both`, comma-separated. */
export const parseSurfaces: Parser<Surface[]> = (raw, name) => {
  const names = raw.split(',').map((s) => s.trim().toLowerCase());
  const valid: readonly string[] = [...SURFACE_NAMES, 'both'];
  const unknown = names.find((entry) => !valid.includes(entry));
  if (unknown !== undefined) {
    throw new ConfigError(name, `must be gateway, site or both (got '${raw}')`);
  }
  const both = names.includes('both');
  return SURFACE_NAMES.filter((surface) => both || names.includes(surface));
};

/**
 * MCP_ALLOWED_ORIGINS (or `site.mcpAllowedOrigins`): browser origins (`https://app.example.com`)
 * allowed to call POST /mcp on top of the site's and gateway's own public origins and localhost.
 */
export function checkAllowedOrigins(setting: string, entries: readonly string[]): string[] {
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
