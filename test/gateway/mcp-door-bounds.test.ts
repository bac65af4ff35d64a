import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS, rpc } from '../helpers/mcp-http.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';

const AGENT = { authorization: 'Bearer agent:agent-secret-0123456789' };

/** What strangers control at POST /mcp, bounded: credentials, methods, body, arguments, calls at once. */
describe('POST /mcp bounds what a client controls', () => {
  const kit = new McpToolServer();
  before(() => kit.start());
  after(() => kit.stop());
  const gw = shareGateway(() => ({
    file: {
      mcp: {
        servers: { kit: { url: kit.url } },
        maxBodyBytes: 4096,
        maxArgumentBytes: 256,
        maxConcurrentCallsPerApp: 1,
      },
      apps: [{ name: 'agent', secret: 'agent-secret-0123456789', mcp: { allow: ['kit/*'] } }],
    },
  }));
  const post = (body: unknown, headers: Record<string, string> = AGENT) =>
    gw.gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('refuses a request without credentials with 401 and a JSON-RPC error, before reading the body', async () => {
    const res = await post(rpc('tools/list'), {});
    assert.equal(res.statusCode, 401);
    const body = res.json();
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.match(body.error.message, /Bearer <app>:<secret>/);
    const wrong = await post(rpc('tools/list'), { authorization: 'Bearer agent:wrong-secret-0123456789' });
    assert.equal(wrong.statusCode, 401);
  });

  it('answers GET and DELETE with 405 and Allow: POST (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await gw.gateway.inject({ method, url: '/mcp', headers: AGENT });
      assert.equal(res.statusCode, 405, method);
      assert.equal(res.headers.allow, 'POST');
      assert.match(res.json().error.message, /takes POST only/);
    }
  });

  it('refuses a body past mcp.maxBodyBytes with 413, and one that is not JSON with -32700', async () => {
    const large = rpc('tools/call', { name: 'kit__echo', arguments: { text: 'x'.repeat(5000) } });
    const res = await post(large);
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().jsonrpc, '2.0');
    const garbled = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(garbled.statusCode, 400);
    assert.equal(garbled.json().error.code, -32700);
  });

  it('refuses arguments past mcp.maxArgumentBytes with a JSON-RPC error, before the upstream sees them', async () => {
    const before = kit.calls;
    const res = await post(rpc('tools/call', { name: 'kit__echo', arguments: { text: 'y'.repeat(300) } }));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.error.code, -32602);
    assert.match(body.error.message, /at most 256 \(mcp\.maxArgumentBytes\)/);
    assert.equal(kit.calls, before);
  });

  it("refuses a call past the app's calls in progress with a tool result with isError", async () => {
    const slow = post(rpc('tools/call', { name: 'kit__slow', arguments: { ms: 1_500 } }));
    // The first call holds the app's one place while the upstream sleeps.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await post(rpc('tools/call', { name: 'kit__echo', arguments: { text: 'second' } }));
    const result = refused.json().result;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /already has 1 tool calls in progress/);
    assert.equal((await slow).json().result.content[0].text, 'slept 1500 ms');
    const after = await post(rpc('tools/call', { name: 'kit__echo', arguments: { text: 'third' } }));
    assert.equal(after.json().result.content[0].text, 'echo: third');
  });

  it('never ledgers nor limits initialize and tools/list', async () => {
    await gw.app.recorder.flush();
    const before = (await gw.app.storage.usage.readRecords({ limit: 100 })).length;
    const init = await post(
      rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bounds', version: '1' },
      }),
    );
    assert.equal(init.json().result.serverInfo.name, 'inference-gateway');
    assert.equal((await post(rpc('tools/list'))).json().result.tools.length, 3);
    await gw.app.recorder.flush();
    assert.equal((await gw.app.storage.usage.readRecords({ limit: 100 })).length, before);
  });

  it('lists nothing for an app with no allow list', async () => {
    const res = await post(rpc('tools/list'), { authorization: `Bearer ${APP}:${SECRET}` });
    assert.deepEqual(res.json().result.tools, []);
  });
});

describe('tools/list and a slow upstream', () => {
  const kit = new McpToolServer();
  before(() => kit.start());
  after(() => kit.stop());
  const gw = shareGateway(() => ({
    file: {
      mcp: { servers: { kit: { url: kit.url } }, listTimeoutMs: 300, listCacheMs: 60_000 },
      apps: [{ name: 'agent', secret: 'agent-secret-0123456789', mcp: { allow: ['kit/*'] } }],
    },
  }));
  const list = async () =>
    (
      await gw.gateway.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, ...AGENT },
        payload: JSON.stringify(rpc('tools/list')),
      })
    )
      .json()
      .result.tools.map((tool: { name: string }) => tool.name);

  it('answers without a server slower than the listing bound, and lists its tools once its answer came', async () => {
    kit.listDelayMs = 1_500;
    const started = performance.now();
    assert.deepEqual(await list(), []);
    assert.ok(performance.now() - started < 1_400, 'the listing did not wait for the slow server');
    // The refresh went on in the background and filled the cache.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const again = performance.now();
    assert.deepEqual(await list(), ['kit__echo', 'kit__fail', 'kit__slow']);
    assert.ok(performance.now() - again < 1_000, 'answered from the cache');
  });
});
