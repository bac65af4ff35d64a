import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SiteContent, SitePage } from '../content/site-content.ts';
import type { CatalogApi } from '../openapi/api-catalog.ts';
import { encodeCursor } from './page-cursor.ts';
import {
  listPages,
  lookupApiCatalog,
  lookupPolicy,
  type SiteToolsContext,
  siteOverview,
} from './site-tool-handlers.ts';

const page = (slug: string, kind: SitePage['kind'], title = slug.toUpperCase()): SitePage => ({
  slug,
  title,
  summary: `About ${slug}`,
  updated: '2025-01-01',
  kind,
  body: `Body of ${slug}`,
});

const content: SiteContent = {
  dir: '/content',
  overview: {
    name: 'Site',
    description: 'A site',
    summary: 'A site',
    sections: [{ id: 'legal', title: 'Legal', pages: ['privacy'] }],
    apiDocs: {},
  },
  pages: [
    page('a', 'page'),
    page('b', 'page'),
    page('c', 'page'),
    page('privacy', 'policy', 'Privacy'),
    page('terms', 'policy', 'privacy-notice'),
  ],
  skills: [],
};
const catalog: CatalogApi[] = [
  {
    id: 'gateway',
    name: 'Gateway',
    description: 'Chat and embeddings',
    baseUrl: 'https://api.x',
    openapiUrl: 'https://api.x/openapi.json',
    statusUrl: 'https://api.x/health',
    statusType: 'application/json',
  },
  {
    id: 'site',
    name: 'Site',
    description: 'Newsletter',
    baseUrl: 'https://www.x',
    openapiUrl: 'https://www.x/openapi.json',
    statusUrl: 'https://www.x/api/health',
    statusType: 'application/health+json',
  },
];
const context: SiteToolsContext = { content, catalog, siteUrl: 'https://www.x' };

describe('siteOverview', () => {
  it('counts pages and policies and resolves section pages to titles and URLs', () => {
    const overview = siteOverview(context);
    assert.deepEqual(overview.counts, { pages: 3, policies: 2 });
    assert.deepEqual(overview.sections, [
      {
        id: 'legal',
        title: 'Legal',
        pages: [{ slug: 'privacy', title: 'Privacy', url: 'https://www.x/privacy' }],
      },
    ]);
  });
});

describe('listPages', () => {
  it('gives no nextCursor when the last page is exactly filled', () => {
    const first = listPages(context, { limit: 3 });
    assert.ok(!('error' in first));
    assert.equal(first.pages.length, 3);
    const second = listPages(context, { limit: 2, cursor: first.nextCursor as string });
    assert.ok(!('error' in second));
    assert.deepEqual(
      second.pages.map((p) => p.slug),
      ['privacy', 'terms'],
    );
    assert.equal(second.nextCursor, undefined);
  });

  it('filters by kind, and pages within the filtered list', () => {
    const first = listPages(context, { kind: 'page', limit: 2 });
    assert.ok(!('error' in first));
    const rest = listPages(context, { kind: 'page', limit: 2, cursor: first.nextCursor as string });
    assert.ok(!('error' in rest));
    assert.deepEqual(
      rest.pages.map((p) => p.slug),
      ['c'],
    );
  });

  it('answers an empty list for a cursor past the end (the content is fixed, so nothing is skipped)', () => {
    const result = listPages(context, { limit: 5, cursor: encodeCursor({ offset: 99, kind: 'all' }) });
    assert.deepEqual(result, { pages: [] });
  });

  it('reports a bad cursor as a failure', () => {
    assert.ok('error' in listPages(context, { limit: 5, cursor: '!!' }));
  });
});

describe('lookupPolicy', () => {
  it('prefers a slug match over a title match', () => {
    // "privacy" is the slug of one policy; another policy's title is "privacy-notice".
    const result = lookupPolicy(context, { policy: 'Privacy' });
    assert.ok(!('error' in result));
    assert.equal(result.slug, 'privacy');
    const byTitle = lookupPolicy(context, { policy: 'PRIVACY-NOTICE' });
    assert.ok(!('error' in byTitle));
    assert.equal(byTitle.slug, 'terms');
  });

  it('never returns a page that is not a policy', () => {
    const result = lookupPolicy(context, { policy: 'a' });
    assert.deepEqual(result, { error: 'No policy matches "a". Known policies (by slug): privacy, terms.' });
  });
});

describe('lookupApiCatalog', () => {
  it('matches id, name, description and base URL, ignoring case; no query lists all', () => {
    const ids = (query?: string) => lookupApiCatalog(context, { query }).apis.map((api) => api.id);
    assert.deepEqual(ids(), ['gateway', 'site']);
    assert.deepEqual(ids('  '), ['gateway', 'site']);
    assert.deepEqual(ids('EMBED'), ['gateway']);
    assert.deepEqual(ids('www.x'), ['site']);
    assert.deepEqual(ids('nothing'), []);
  });
});
