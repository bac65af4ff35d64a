import swagger, { type SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { type CachedDocument, prepareJsonDocument } from '../documents/cached-document.ts';
import { registerDocumentRoute } from '../documents/register-document-route.ts';
import { apiCatalogLink } from './api-catalog.ts';

export const SITE_API_VERSION = '1.0.0';

export function siteOpenApiOptions(publicSiteUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Public Site API',
        version: SITE_API_VERSION,
        description:
          'The public API of the website: newsletter signup, health, a read-only MCP server over the site content, and discovery documents for agents and developers. No credentials are needed.',
      },
      servers: [{ url: publicSiteUrl }],
      tags: [
        { name: 'site', description: 'Newsletter and health' },
        { name: 'mcp', description: 'Model Context Protocol server (streamable HTTP, stateless)' },
        { name: 'discovery', description: 'Well-known discovery documents' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  };
}

/**
 * Registers @fastify/swagger, which records every route added after it, and serves the generated
 * OpenAPI 3.1 document at /openapi.json and /.well-known/openapi.json. Call it before any route
 * of surface B is added.
 */
export async function registerSiteOpenApi(app: FastifyInstance, publicSiteUrl: string): Promise<void> {
  await app.register(swagger, siteOpenApiOptions(publicSiteUrl));
  // The document exists only once every route is registered: build it on first request, then keep it.
  let document: CachedDocument | undefined;
  const load = () => {
    document ??= prepareJsonDocument(app.swagger(), 'application/json; charset=utf-8');
    return document;
  };
  const link = { link: apiCatalogLink(publicSiteUrl) };
  for (const [path, operationId] of [
    ['/openapi.json', 'openApiDocument'],
    ['/.well-known/openapi.json', 'wellKnownOpenApiDocument'],
  ] as const) {
    registerDocumentRoute(
      app,
      {
        path,
        operationId,
        summary: 'OpenAPI 3.1 description of this API',
        mediaType: 'application/json',
        bodySchema: { type: 'object', additionalProperties: true },
        // The document does not describe itself: a reader already holds it.
        hide: true,
        serve: { headers: link },
      },
      load,
    );
  }
}
