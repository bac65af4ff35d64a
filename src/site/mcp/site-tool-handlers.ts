import { pageUrl, type SiteContent, type SitePage } from '../content/site-content.ts';
import type { CatalogApi } from '../openapi/api-catalog.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import type {
  ListPagesArgs,
  ListPagesData,
  LookupApiCatalogData,
  LookupPolicyData,
  SiteOverviewData,
} from './site-tool-schemas.ts';

/** What the tools read: loaded once at start-up, shared by every request's server. */
export interface SiteToolsContext {
  content: SiteContent;
  catalog: readonly CatalogApi[];
  siteUrl: string;
  /** Told of each tool call and whether it answered a tool error. */
  onToolCall?: (tool: string, outcome: 'ok' | 'error') => void;
}

/** A failure the caller can act on; reported as a tool error (isError), not a protocol error. */
export interface ToolFailure {
  error: string;
}

export function siteOverview(context: SiteToolsContext): SiteOverviewData {
  const { overview, pages } = context.content;
  const bySlug = new Map(pages.map((page) => [page.slug, page]));
  return {
    name: overview.name,
    description: overview.description,
    baseUrl: context.siteUrl,
    sections: overview.sections.map((section) => ({
      id: section.id,
      title: section.title,
      ...(section.description === undefined ? {} : { description: section.description }),
      pages: section.pages.map((slug) => {
        const page = bySlug.get(slug) as SitePage;
        return { slug, title: page.title, url: pageUrl(context.siteUrl, slug) };
      }),
    })),
    counts: {
      pages: pages.filter((page) => page.kind === 'page').length,
      policies: pages.filter((page) => page.kind === 'policy').length,
    },
  };
}

export function listPages(context: SiteToolsContext, args: ListPagesArgs): ListPagesData | ToolFailure {
  const listing = args.kind ?? 'all';
  let offset = 0;
  if (args.cursor !== undefined) {
    const cursor = decodeCursor(args.cursor, listing);
    if ('error' in cursor) return cursor;
    offset = cursor.offset;
  }
  const matching = context.content.pages.filter((page) => args.kind === undefined || page.kind === args.kind);
  const slice = matching.slice(offset, offset + args.limit);
  const next = offset + slice.length;
  return {
    pages: slice.map((page) => ({
      slug: page.slug,
      title: page.title,
      kind: page.kind,
      url: pageUrl(context.siteUrl, page.slug),
      summary: page.summary,
      updated: page.updated,
    })),
    ...(next < matching.length ? { nextCursor: encodeCursor({ offset: next, kind: listing }) } : {}),
  };
}

export function lookupPolicy(
  context: SiteToolsContext,
  args: { policy: string },
): LookupPolicyData | ToolFailure {
  const wanted = args.policy.trim().toLowerCase();
  const policies = context.content.pages.filter((page) => page.kind === 'policy');
  const found =
    policies.find((page) => page.slug === wanted) ??
    policies.find((page) => page.title.toLowerCase() === wanted);
  if (found === undefined) {
    const known = policies.map((page) => page.slug).join(', ');
    return { error: `No policy matches "${args.policy}". Known policies (by slug): ${known}.` };
  }
  return {
    slug: found.slug,
    title: found.title,
    url: pageUrl(context.siteUrl, found.slug),
    updated: found.updated,
    text: found.body,
  };
}

export function lookupApiCatalog(
  context: SiteToolsContext,
  args: { query?: string | undefined },
): LookupApiCatalogData {
  const query = args.query?.trim().toLowerCase() ?? '';
  const matches = (api: CatalogApi) =>
    query === '' ||
    [api.id, api.name, api.description, api.baseUrl].some((text) => text.toLowerCase().includes(query));
  return {
    apis: context.catalog.filter(matches).map((api) => ({
      id: api.id,
      name: api.name,
      description: api.description,
      baseUrl: api.baseUrl,
      openapiUrl: api.openapiUrl,
      ...(api.docsUrl === undefined ? {} : { docsUrl: api.docsUrl }),
      statusUrl: api.statusUrl,
    })),
  };
}
