import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';
import { MinuteClock } from '../helpers/minute-clock.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';
import { shareSite } from '../helpers/site-harness.ts';

const UPSTREAM_TOKEN = 'upstream-bearer-token-do-not-leak';
const SITE_TOOLS = [
  'site__list_pages',
  'site__lookup_api_catalog',
  'site__lookup_policy',
  'site__site_overview',
];
const KIT_TOOLS = ['kit__echo', 'kit__fail', 'kit__slow'];

/** A port nothing listens on: an upstream that is down. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  return (first as { text: string }).text;
}

describe('the MCP gateway through the official MCP client, to the site and an SDK server', () => {
  const kit = new McpToolServer();
  const site = shareSite();
  let siteUrl = '';
  let goneUrl = '';
  const clients: Client[] = [];
  before(async () => {
    await kit.start();
    await site.site.listen({ port: 0, host: '127.0.0.1' });
    siteUrl = `http://127.0.0.1:${(site.site.server.address() as AddressInfo).port}/mcp`;
    goneUrl = await deadUrl();
  });
  after(() => kit.stop());
  // Declared after the upstreams: the gateway closes first, its clients before it.
  const gw = shareGateway(() => ({
    clock: new MinuteClock(),
    file: {
      mcp: {
        servers: {
          site: { url: siteUrl },
          kit: { url: kit.url, headers: { Authorization: `Bearer ${UPSTREAM_TOKEN}` } },
          gone: { url: goneUrl },
        },
        callTimeoutMs: 600,
        // Listing is bounded by this; the slow-upstream case is mcp-door-bounds.test.ts's. Here the
        // reachable upstreams must be listed even on a loaded machine: a site's first listing (its
        // MCP SDK loaded on first use, a session opened) took over 1 s in a full run.
        listTimeoutMs: 10_000,
      },
      apps: [
        { name: 'agent', secret: 'agent-secret-0123456789', mcp: { allow: ['site/*', 'kit/*', 'gone/*'] } },
        { name: 'narrow', secret: 'narrow-secret-0123456789', mcp: { allow: ['kit/echo'] } },
        { name: 'limited', secret: 'limited-secret-0123456789', mcp: { allow: ['kit/*'] } },
      ],
      limits: { apps: { limited: { requestsPerMinute: 2 } } },
    },
  }));
  let gatewayUrl = '';
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    gatewayUrl = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/mcp`;
  });
  after(() => Promise.all(clients.map((client) => client.close())));

  async function connect(app: string, secret: string): Promise<Client> {
    const client = new Client({ name: 'mcp-gateway-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(gatewayUrl), {
      requestInit: { headers: { Authorization: `Bearer ${app}:${secret}` } },
    });
    await client.connect(transport);
    assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('lists every allowed tool of the reachable upstreams, server__tool, by name; the down one is skipped', async () => {
    const client = await connect('agent', 'agent-secret-0123456789');
    const started = performance.now();
    const { tools } = await client.listTools();
    assert.ok(performance.now() - started < 5_000, 'the server that is down does not hold the listing');
    assert.deepEqual(
      tools.map((tool) => tool.name),
      [...KIT_TOOLS, ...SITE_TOOLS],
    );
    const echo = tools.find((tool) => tool.name === 'kit__echo');
    assert.equal(echo?.description, 'Answers its text.');
    assert.deepEqual(Object.keys(echo?.inputSchema.properties ?? {}), ['text']);
  });

  it('lists only what an allow list names, and nothing for an app without one', async () => {
    const narrow = await connect('narrow', 'narrow-secret-0123456789');
    assert.deepEqual(
      (await narrow.listTools()).tools.map((tool) => tool.name),
      ['kit__echo'],
    );
    const none = await connect(APP, SECRET);
    assert.deepEqual((await none.listTools()).tools, []);
  });

  it('proxies calls to each upstream, the upstream headers sent and never shown', async () => {
    const client = await connect('agent', 'agent-secret-0123456789');
    const echoed = await call(client, 'kit__echo', { text: 'hello' });
    assert.notEqual(echoed.isError, true);
    assert.equal(textOf(echoed), 'echo: hello');
    assert.ok(kit.authorizations.includes(`Bearer ${UPSTREAM_TOKEN}`));
    const overview = await call(client, 'site__site_overview');
    assert.equal((overview.structuredContent as { name?: string }).name, 'Fieldstone Gateway');
    assert.doesNotMatch(JSON.stringify([echoed, overview]), new RegExp(UPSTREAM_TOKEN));
    const failed = await call(client, 'kit__fail');
    assert.equal(failed.isError, true);
    assert.equal(textOf(failed), 'it failed, as it always does');
  });

  it('refuses a tool the allow list does not name, even when the client knows its name', async () => {
    const narrow = await connect('narrow', 'narrow-secret-0123456789');
    const before = kit.calls;
    await assert.rejects(
      call(narrow, 'kit__slow', { ms: 1 }),
      (error: unknown) =>
        error instanceof McpError &&
        error.code === -32602 &&
        /not allowed for app 'narrow'/.test(error.message),
    );
    await assert.rejects(call(narrow, 'nowhere__tool'), /Unknown tool/);
    assert.equal(kit.calls, before, 'the upstream never saw the refused calls');
    // The session goes on.
    assert.equal(textOf(await call(narrow, 'kit__echo', { text: 'still here' })), 'echo: still here');
  });

  it('answers a server that is down with a tool result with isError, and goes on', async () => {
    const client = await connect('agent', 'agent-secret-0123456789');
    const result = await call(client, 'gone__anything');
    assert.equal(result.isError, true);
    assert.match(textOf(result), /MCP server 'gone' could not be reached/);
    assert.doesNotMatch(textOf(result), /127\.0\.0\.1/);
    assert.equal(textOf(await call(client, 'kit__echo', { text: 'after' })), 'echo: after');
  });

  it('cuts a call past the bound with a tool result with isError', async () => {
    const client = await connect('agent', 'agent-secret-0123456789');
    const started = performance.now();
    const result = await call(client, 'kit__slow', { ms: 5_000 });
    const elapsed = performance.now() - started;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /MCP server 'kit' did not answer within 0\.6 s/);
    assert.ok(elapsed < 4_000, `cut near the 600 ms bound, not after the tool's 5 s (took ${elapsed} ms)`);
  });

  it('records a call whose client left before the answer as 499 client_closed, and cancels it upstream', async () => {
    const controller = new AbortController();
    const leaving = fetch(gatewayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer agent:agent-secret-0123456789',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'kit__slow', arguments: { ms: 400 } },
      }),
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    controller.abort();
    await assert.rejects(leaving, { name: 'AbortError' });
    // The gateway hears the connection close, finishes the run and cancels the call upstream
    // (checked with the ledger rows below).
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  it('reconnects when the upstream restarts and forgets its session', async () => {
    const client = await connect('agent', 'agent-secret-0123456789');
    assert.equal(textOf(await call(client, 'kit__echo', { text: 'one' })), 'echo: one');
    await kit.stop();
    await kit.start();
    assert.equal(textOf(await call(client, 'kit__echo', { text: 'two' })), 'echo: two');
  });

  it("counts calls toward the app's request limit: the third in a minute is refused, naming the limit", async () => {
    const client = await connect('limited', 'limited-secret-0123456789');
    // initialize and tools/list count toward nothing.
    await client.listTools();
    await client.listTools();
    assert.equal(textOf(await call(client, 'kit__echo', { text: '1' })), 'echo: 1');
    assert.equal(textOf(await call(client, 'kit__echo', { text: '2' })), 'echo: 2');
    const refused = await call(client, 'kit__echo', { text: '3' });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /requests per minute limit; retry after \d+ s/);
  });

  it('leaves one ledger row per call that ran: operation mcp_tool, front door mcp, server, tool, status, cost 0', async () => {
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 500 });
    const tools = rows.filter((row) => row.operation === 'mcp_tool');
    assert.ok(tools.every((row) => row.frontDoor === 'mcp' && row.costUsd === 0 && row.tokensIn === 0));
    const summary = tools.map((row) => `${row.app} ${row.mcpServer}__${row.mcpTool} ${row.status}`);
    const count = (line: string) => summary.filter((s) => s === line).length;
    assert.equal(count('agent kit__echo 200'), 4);
    assert.equal(count('agent site__site_overview 200'), 1);
    assert.equal(count('agent kit__fail 200'), 1);
    assert.equal(count('agent gone__anything 502'), 1);
    assert.equal(count('agent kit__slow 504'), 1);
    assert.equal(count('agent kit__slow 499'), 1);
    assert.equal(
      kit.cancelled,
      2,
      'the call cut at its bound and the one whose client left were cancelled upstream',
    );
    assert.equal(count('narrow kit__echo 200'), 1);
    assert.equal(count('limited kit__echo 200'), 2);
    // Refused calls (the allow list, the limit) never ran: no row.
    assert.equal(tools.filter((row) => row.app === 'narrow').length, 1);
    assert.equal(tools.filter((row) => row.app === 'limited').length, 2);
    const slow = tools.find((row) => row.mcpTool === 'slow');
    assert.equal(slow?.errorCode, 'upstream_timeout');
    assert.ok((slow?.latencyMs ?? 0) >= 500);
  });

  it('shows tool calls in GET /v1/usage?groupBy=tool', async () => {
    const usage = await gw.get('/v1/usage?groupBy=operation,tool', {
      auth: false,
      headers: { authorization: 'Bearer agent:agent-secret-0123456789' },
    });
    assert.equal(usage.status, 200, usage.text);
    const echo = usage.body.rows.find((row: { tool?: string }) => row.tool === 'kit__echo');
    assert.equal(echo.operation, 'mcp_tool');
    assert.equal(echo.requests, 4);
  });

  it('counts calls in /metrics by server, tool and outcome, with bounded labels', async () => {
    const scrape = (await gw.get('/metrics', { auth: false })).text;
    assert.doesNotMatch(scrape, new RegExp(UPSTREAM_TOKEN));
    const samples = parsePrometheusText(scrape);
    const calls = (labels: Record<string, string>) => sumOf(samples, 'gateway_mcp_tool_calls_total', labels);
    assert.equal(calls({ server: 'kit', tool: 'echo', outcome: 'ok' }), 7);
    assert.equal(calls({ server: 'kit', tool: 'echo', outcome: 'rate_limited' }), 1);
    assert.equal(calls({ server: 'kit', tool: 'fail', outcome: 'tool_error' }), 1);
    assert.equal(calls({ server: 'kit', tool: 'slow', outcome: 'timeout' }), 1);
    assert.equal(calls({ server: 'kit', tool: 'slow', outcome: 'client_closed' }), 1);
    assert.equal(calls({ server: 'kit', tool: 'slow', outcome: 'denied' }), 1);
    assert.equal(calls({ server: 'gone', tool: 'other', outcome: 'unreachable' }), 1);
    assert.equal(calls({ server: 'other', tool: 'other', outcome: 'unknown_tool' }), 1);
    assert.equal(
      sumOf(samples, 'gateway_requests_total', {
        front_door: 'mcp',
        operation: 'mcp_tool',
        app: 'limited',
        status: '429',
      }),
      1,
    );
  });
});
