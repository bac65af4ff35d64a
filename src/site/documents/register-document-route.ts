import type { FastifyInstance } from 'fastify';
import { type CachedDocument, type ServeOptions, serveDocument } from './cached-document.ts';

export interface DocumentRoute {
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** Media type of the body, as the OpenAPI document names it (no parameters). */
  mediaType: string;
  /** JSON Schema of the body, for the OpenAPI document only (bodies are sent pre-serialised). */
  bodySchema: Record<string, unknown>;
  /** Hidden from the OpenAPI document (copies of documented routes, page files). */
  hide?: boolean;
  /** Further documented answers, e.g. 404 when the document is not published. */
  responses?: Record<string, unknown>;
  serve?: Partial<ServeOptions>;
}

export const DISCOVERY_TAG = 'discovery';
const NOT_MODIFIED = { description: 'Not modified: If-None-Match matched the current ETag', type: 'null' };

/**
 * GET (and, by Fastify's default, HEAD) of one cached document with ETag/304, cache headers and,
 * unless told otherwise, CORS for any origin. `load` returns the document; it may build it on
 * first use (the OpenAPI document only exists once every route is registered), and may return a
 * promise of it (the MCP server card loads the MCP SDK only when it is first asked for).
 */
export function registerDocumentRoute(
  app: FastifyInstance,
  route: DocumentRoute,
  load: () => CachedDocument | Promise<CachedDocument>,
): void {
  app.get(
    route.path,
    {
      schema: {
        ...(route.hide === true ? { hide: true } : {}),
        tags: [DISCOVERY_TAG],
        summary: route.summary,
        ...(route.description === undefined ? {} : { description: route.description }),
        operationId: route.operationId,
        response: {
          200: {
            description: route.summary,
            content: { [route.mediaType]: { schema: route.bodySchema } },
          },
          304: NOT_MODIFIED,
          ...route.responses,
        },
      },
    },
    (request, reply) => {
      const document = load();
      const options = { cors: true, ...route.serve };
      return document instanceof Promise
        ? document.then((built) => serveDocument(request, reply, built, options))
        : serveDocument(request, reply, document, options);
    },
  );
}
