import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { SITE_URL, shareSite } from '../helpers/site-harness.ts';

const GATEWAY_URL = 'https://gateway.example.test';

/** The structured answer of a successful call, checked against its text twin. */
function dataOf(result: CallToolResult): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const text = result.content[0];
  assert.equal(text?.type, 'text');
  assert.deepEqual(
    JSON.parse((text as { text: string }).text),
    result.structuredContent,
    'text and structuredContent agree',
  );
  return result.structuredContent;
}

function errorText(result: CallToolResult): string {
  assert.equal(result.isError, true);
  const text = result.content[0];
  assert.equal(text?.type, 'text');
  return (text as { text: string }).text;
}

describe('the official MCP client against a listening site', () => {
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  // Declared before the site, so its after hook runs first: the client hangs up, then the site closes.
  after(() => client?.close());
  const h = shareSite({ env: { PUBLIC_GATEWAY_URL: GATEWAY_URL } });
  before(async () => {
    await h.site.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.site.server.address() as AddressInfo;
    client = new Client({ name: 'site-client-test', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    await client.connect(transport);
  });

  it('connects and negotiates the latest revision the SDK knows', () => {
    assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.equal(client.getServerVersion()?.name, 'site');
    assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
    assert.match(client.getInstructions() ?? '', /site_overview/);
  });

  it('lists the four tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'list_pages',
      'lookup_api_catalog',
      'lookup_policy',
      'site_overview',
    ]);
  });

  it('site_overview: name, description, base URL, sections with their pages, counts', async () => {
    const overview = dataOf(await call('site_overview'));
    assert.equal(overview.name, 'Fieldstone Gateway');
    assert.equal(overview.baseUrl, SITE_URL);
    assert.deepEqual(overview.counts, { pages: 5, policies: 4 });
    assert.deepEqual(
      overview.sections.map((section: any) => section.id),
      ['product', 'developers', 'company', 'legal'],
    );
    const legal = overview.sections.find((section: any) => section.id === 'legal');
    assert.deepEqual(legal.pages[0], {
      slug: 'privacy',
      title: 'Privacy Policy',
      url: `${SITE_URL}/privacy`,
    });
  });

  it('list_pages: pages then policies, paged with an opaque cursor until nextCursor is absent', async () => {
    const slugs: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = dataOf(
        await call('list_pages', { limit: 2, ...(cursor === undefined ? {} : { cursor }) }),
      );
      assert.ok(page.pages.length <= 2);
      slugs.push(...page.pages.map((p: any) => p.slug));
      cursor = page.nextCursor;
      calls++;
    } while (cursor !== undefined);
    assert.equal(calls, 5);
    assert.deepEqual(slugs, [
      'about',
      'contact',
      'docs/getting-started',
      'docs/site-api',
      'pricing',
      'acceptable-use',
      'cookies',
      'privacy',
      'terms',
    ]);
  });

  it('list_pages: the default limit, the kind filter and every field of an entry', async () => {
    const all = dataOf(await call('list_pages'));
    assert.equal(all.pages.length, 9);
    assert.equal(all.nextCursor, undefined);
    const policies = dataOf(await call('list_pages', { kind: 'policy' }));
    assert.deepEqual(
      policies.pages.map((p: any) => p.kind),
      ['policy', 'policy', 'policy', 'policy'],
    );
    assert.deepEqual(policies.pages[2], {
      slug: 'privacy',
      title: 'Privacy Policy',
      kind: 'policy',
      url: `${SITE_URL}/privacy`,
      summary:
        'What personal data this site and the hosted gateway process, why, for how long, and your rights.',
      updated: '2025-06-02',
    });
  });

  it('list_pages: a bad cursor, or one from another listing, is a tool error that says what to do', async () => {
    assert.match(errorText(await call('list_pages', { cursor: 'garbage!' })), /cursor is not valid/);
    const first = dataOf(await call('list_pages', { limit: 1 }));
    assert.match(
      errorText(await call('list_pages', { kind: 'page', cursor: first.nextCursor })),
      /kind 'all'/,
    );
  });

  it('lookup_policy: by slug or by title, ignoring case', async () => {
    const bySlug = dataOf(await call('lookup_policy', { policy: 'privacy' }));
    assert.equal(bySlug.title, 'Privacy Policy');
    assert.equal(bySlug.url, `${SITE_URL}/privacy`);
    assert.equal(bySlug.updated, '2025-06-02');
    assert.match(bySlug.text, /## Your rights/);
    const byTitle = dataOf(await call('lookup_policy', { policy: '  TERMS OF SERVICE ' }));
    assert.equal(byTitle.slug, 'terms');
  });

  it('lookup_policy: an unknown policy (or a page that is not a policy) is a tool error listing the known slugs', async () => {
    const text = errorText(await call('lookup_policy', { policy: 'refunds' }));
    assert.equal(
      text,
      'No policy matches "refunds". Known policies (by slug): acceptable-use, cookies, privacy, terms.',
    );
    assert.match(errorText(await call('lookup_policy', { policy: 'about' })), /Known policies/);
  });

  it('lookup_api_catalog: both APIs with their links, narrowed by a case-insensitive query', async () => {
    const all = dataOf(await call('lookup_api_catalog'));
    assert.deepEqual(
      all.apis.map((api: any) => api.id),
      ['gateway', 'site'],
    );
    assert.deepEqual(all.apis[0], {
      id: 'gateway',
      name: 'Inference Gateway API',
      description: all.apis[0].description,
      baseUrl: GATEWAY_URL,
      openapiUrl: `${GATEWAY_URL}/openapi.json`,
      docsUrl: `${SITE_URL}/docs/getting-started`,
      statusUrl: `${GATEWAY_URL}/health`,
    });
    assert.equal(all.apis[1].statusUrl, `${SITE_URL}/api/health`);
    const embeddings = dataOf(await call('lookup_api_catalog', { query: 'EMBEDDINGS' }));
    assert.deepEqual(
      embeddings.apis.map((api: any) => api.id),
      ['gateway'],
    );
    assert.deepEqual(dataOf(await call('lookup_api_catalog', { query: 'no such api' })).apis, []);
  });
});
