import type { FastifyInstance } from 'fastify';
import { prepareDocument, serveDocument } from '../documents/cached-document.ts';
import type { SiteContent } from './site-content.ts';

/**
 * Serves every page at `/<slug>` as Markdown, so the URLs that `list_pages`, `lookup_policy` and
 * the API catalog hand out resolve on this server too (a front end in front of it may serve HTML
 * at the same paths instead). Exact routes per page, never a catch-all, so unknown paths keep
 * their 404 and 405 answers. Hidden from the OpenAPI document: these are documents, not operations.
 */
export function registerPageRoutes(app: FastifyInstance, content: SiteContent): void {
  for (const page of content.pages) {
    const text = `# ${page.title}\n\n${page.body}\n`;
    const document = prepareDocument(text, 'text/markdown; charset=utf-8');
    const headers = { 'last-modified': new Date(`${page.updated}T00:00:00Z`).toUTCString() };
    app.get(`/${page.slug}`, { schema: { hide: true } }, (request, reply) =>
      serveDocument(request, reply, document, { cors: true, headers }),
    );
  }
}
