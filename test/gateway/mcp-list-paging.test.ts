import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_TOOLS_PER_SERVER } from '../../src/gateway/domain/mcp-tools.ts';
import { MAX_LIST_PAGES } from '../../src/gateway/mcp/mcp-upstream.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS, rpc } from '../helpers/mcp-http.ts';
import { McpPagingServer } from '../helpers/mcp-paging-server.ts';

/** An upstream's tools/list in pages (`nextCursor`): followed to the end, within bounds. */
describe('tools/list follows the pages of an upstream that pages', () => {
  const paged = new McpPagingServer({ tools: 130, pageSize: 7 });
  const large = new McpPagingServer({ tools: 620, pageSize: 100 });
  const endless = new McpPagingServer({ tools: 10, pageSize: 10, endless: true });
  const upstreams = [paged, large, endless];
  before(() => Promise.all(upstreams.map((upstream) => upstream.start())));
  after(() => Promise.all(upstreams.map((upstream) => upstream.stop())));
  const gw = shareGateway(() => ({
    file: {
      mcp: {
        servers: { paged: { url: paged.url }, large: { url: large.url }, endless: { url: endless.url } },
        // The bound of a listing is not what is tested here: a loaded machine has time.
        listTimeoutMs: 20_000,
      },
      apps: [
        { name: 'paged', secret: 'paged-secret-0123456789', mcp: { allow: ['paged/*'] } },
        { name: 'large', secret: 'large-secret-0123456789', mcp: { allow: ['large/*'] } },
        { name: 'endless', secret: 'endless-secret-0123456789', mcp: { allow: ['endless/*'] } },
      ],
    },
  }));
  const post = async (app: string, body: unknown) =>
    (
      await gw.gateway.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${app}:${app}-secret-0123456789` },
        payload: JSON.stringify(body),
      })
    ).json();
  const names = async (app: string): Promise<string[]> =>
    (await post(app, rpc('tools/list'))).result.tools.map((tool: { name: string }) => tool.name);
  const expected = (server: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${server}__tool_${String(index).padStart(4, '0')}`);

  it('lists every tool of an upstream of many pages, in one answer, and calls one from its last page', async () => {
    assert.deepEqual(await names('paged'), expected('paged', 130));
    assert.equal(paged.pagesServed, 19, '130 tools, 7 a page');
    const called = await post('paged', rpc('tools/call', { name: 'paged__tool_0129', arguments: {} }));
    assert.equal(called.result.content[0].text, 'called tool_0129');
  });

  it(`keeps the first ${MAX_TOOLS_PER_SERVER} tools of an upstream with more, and asks no further page`, async () => {
    assert.deepEqual(await names('large'), expected('large', MAX_TOOLS_PER_SERVER));
    assert.equal(large.pagesServed, 5);
  });

  it(`stops after ${MAX_LIST_PAGES} pages of an upstream whose pages never end, a tool listed again kept once`, async () => {
    assert.deepEqual(await names('endless'), expected('endless', 10));
    assert.equal(endless.pagesServed, MAX_LIST_PAGES);
  });
});
