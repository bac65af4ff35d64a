import type { SiteOverview } from '../content/site-content.ts';

/** One API the publisher offers: the data behind /.well-known/api-catalog and `lookup_api_catalog`. */
export interface CatalogApi {
  id: 'gateway' | 'site';
  name: string;
  description: string;
  baseUrl: string;
  openapiUrl: string;
  /** Human-readable documentation; absent when the site content names none. */
  docsUrl?: string;
  /** Health or status resource. */
  statusUrl: string;
  /** Media type of the status resource. */
  statusType: string;
}

export interface CatalogUrls {
  publicGatewayUrl: string;
  publicSiteUrl: string;
}

export const API_CATALOG_PATH = '/.well-known/api-catalog';
/** RFC 9727 §4: a linkset (RFC 9264) whose profile parameter says it is an API catalog. */
export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const API_CATALOG_CONTENT_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;
const OPENAPI_MEDIA_TYPE = 'application/openapi+json';

/**
 * Both surfaces, whether or not this process runs the gateway: the catalog describes what the
 * publisher offers at its public addresses, which is what a client can reach.
 */
export function buildApiCatalog(urls: CatalogUrls, overview: SiteOverview): CatalogApi[] {
  const gateway: CatalogApi = {
    id: 'gateway',
    name: 'Inference Gateway API',
    description:
      'Chat completion (JSON or server-sent events), embeddings and schema-validated JSON across three model provider slots, with usage, estimated cost and latency on every answer. Requires application credentials.',
    baseUrl: urls.publicGatewayUrl,
    openapiUrl: `${urls.publicGatewayUrl}/openapi.json`,
    statusUrl: `${urls.publicGatewayUrl}/health`,
    statusType: 'application/json',
    ...(overview.apiDocs.gateway === undefined ? {} : { docsUrl: overview.apiDocs.gateway }),
  };
  const site: CatalogApi = {
    id: 'site',
    name: 'Public Site API',
    description:
      'Public API of the website: newsletter signup, health, a read-only MCP server over the site content, and discovery documents. No credentials needed.',
    baseUrl: urls.publicSiteUrl,
    openapiUrl: `${urls.publicSiteUrl}/openapi.json`,
    statusUrl: `${urls.publicSiteUrl}/api/health`,
    // The site's health report is an IETF health check document (draft-inadarei-api-health-check).
    statusType: 'application/health+json',
    ...(overview.apiDocs.site === undefined ? {} : { docsUrl: overview.apiDocs.site }),
  };
  return [gateway, site];
}

/** The catalog as an RFC 9264 JSON linkset, with RFC 8631 relations per API (RFC 9727 appendix A). */
export function toLinkset(
  apis: readonly CatalogApi[],
  catalogUrl: string,
): { linkset: Record<string, unknown>[] } {
  // The catalog's own entry lists every API as an `item`, for clients that only follow items.
  const index = { anchor: catalogUrl, item: apis.map((api) => ({ href: api.baseUrl, title: api.name })) };
  const entries = apis.map((api) => ({
    anchor: api.baseUrl,
    'service-desc': [{ href: api.openapiUrl, type: OPENAPI_MEDIA_TYPE, title: `${api.name} (OpenAPI 3.1)` }],
    ...(api.docsUrl === undefined
      ? {}
      : { 'service-doc': [{ href: api.docsUrl, title: `${api.name} documentation` }] }),
    status: [{ href: api.statusUrl, type: api.statusType }],
  }));
  return { linkset: [index, ...entries] };
}

/** The `Link` header value pointing at the catalog (RFC 9727 §3, RFC 8288). */
export function apiCatalogLink(publicSiteUrl: string): string {
  return `<${publicSiteUrl}${API_CATALOG_PATH}>; rel="api-catalog"`;
}
