/**
 * DNS-rebinding protection for the MCP endpoint (MCP transports, "Security Warning"): a browser
 * page may only reach the server from an origin the operator trusts. Requests without `Origin`
 * come from non-browser clients and are allowed; a public server has nothing else to check.
 */
export interface OriginPolicyInput {
  publicSiteUrl: string;
  publicGatewayUrl: string;
  /** Further trusted origins (MCP_ALLOWED_ORIGINS), e.g. `https://app.example.com`. */
  allowedOrigins: readonly string[];
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Builds the check once; throws on an allow-list entry that is not an origin, naming it. */
export function createOriginPolicy(input: OriginPolicyInput): (origin: string | undefined) => boolean {
  const trusted = new Set([originOf(input.publicSiteUrl), originOf(input.publicGatewayUrl)]);
  for (const entry of input.allowedOrigins) {
    const url = URL.canParse(entry) ? new URL(entry) : undefined;
    const isOrigin =
      url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '';
    if (!isOrigin) {
      throw new Error(
        `allowed MCP origin '${entry}' must be a scheme, host and optional port, e.g. https://app.example.com`,
      );
    }
    trusted.add(url.origin);
  }
  return (origin) => {
    if (origin === undefined) return true;
    // `null` (sandboxed frames, file: pages) and anything unparseable are foreign by definition.
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    // Local development tools (MCP Inspector and the like) run on a local port of their choosing.
    if (LOCAL_HOSTNAMES.has(url.hostname)) return true;
    return trusted.has(url.origin);
  };
}

function originOf(url: string): string {
  return new URL(url).origin;
}
