import type { FastifyInstance } from 'fastify';
import { prepareJsonDocument } from '../documents/cached-document.ts';
import { registerDocumentRoute } from '../documents/register-document-route.ts';
import {
  API_CATALOG_CONTENT_TYPE,
  API_CATALOG_PATH,
  apiCatalogLink,
  type CatalogApi,
  toLinkset,
} from '../openapi/api-catalog.ts';
import { LinksetSchema } from './discovery-schemas.ts';

export interface ApiCatalogDeps {
  publicSiteUrl: string;
  catalog: readonly CatalogApi[];
}

/** GET/HEAD /.well-known/api-catalog (RFC 9727), with the `api-catalog` Link header it requires. */
export function registerApiCatalogRoute(app: FastifyInstance, deps: ApiCatalogDeps): void {
  const catalogUrl = `${deps.publicSiteUrl}${API_CATALOG_PATH}`;
  const document = prepareJsonDocument(toLinkset(deps.catalog, catalogUrl), API_CATALOG_CONTENT_TYPE);
  registerDocumentRoute(
    app,
    {
      path: API_CATALOG_PATH,
      operationId: 'apiCatalog',
      summary: 'API catalog (RFC 9727): both APIs with their OpenAPI, documentation and status links',
      mediaType: 'application/linkset+json',
      bodySchema: LinksetSchema,
      serve: { headers: { link: apiCatalogLink(deps.publicSiteUrl) } },
    },
    () => document,
  );
}
