import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load-config.ts';
import { createBaseApp } from '../../src/platform/fastify-base.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { registerSiteDiscovery } from '../../src/site/register-site-discovery.ts';
import { initializeParams, postMcp, rpc } from '../helpers/mcp-http.ts';
import { SITE_URL, shareSite, startSite } from '../helpers/site-harness.ts';

const GATEWAY_URL = 'https://gateway.example.test';

describe('POST /mcp: the protocol over streamable HTTP', () => {
  const h = shareSite({ env: { PUBLIC_GATEWAY_URL: GATEWAY_URL } });

  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`initialize: a client asking for ${version} gets ${version}, then lists tools with that revision`, async () => {
      const init = await postMcp(h.site, rpc('initialize', initializeParams(version)), {
        'mcp-protocol-version': version,
      });
      assert.equal(init.statusCode, 200);
      assert.match(String(init.headers['content-type']), /^application\/json/);
      const result = init.json().result;
      assert.equal(result.protocolVersion, version);
      assert.equal(result.serverInfo.name, 'site');
      assert.equal(result.serverInfo.title, 'Fieldstone Gateway');
      assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
      assert.equal(init.headers['mcp-session-id'], undefined, 'stateless: no session');

      const list = await postMcp(h.site, rpc('tools/list'), { 'mcp-protocol-version': version });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().result.tools.length, 4);
    });
  }

  it(`initialize: a revision the SDK does not know (2026-07-28) is answered with ${LATEST_PROTOCOL_VERSION}`, async () => {
    const init = await postMcp(h.site, rpc('initialize', initializeParams('2026-07-28')));
    assert.equal(init.json().result.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
  });

  it('refuses a request whose MCP-Protocol-Version header names an unsupported revision', async () => {
    const res = await postMcp(h.site, rpc('tools/list'), { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.message, /Unsupported protocol version/);
  });

  it('answers ping with an empty result', async () => {
    const request = rpc('ping');
    const res = await postMcp(h.site, request, { 'mcp-protocol-version': '2025-11-25' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { jsonrpc: '2.0', id: request.id, result: {} });
  });

  it('answers an unknown method with JSON-RPC -32601', async () => {
    const request = rpc('resources/list');
    const res = await postMcp(h.site, request);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, request.id);
    assert.equal(res.json().error.code, -32601);
  });

  it('accepts a notification with 202 and no body', async () => {
    const res = await postMcp(h.site, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(res.statusCode, 202);
    assert.equal(res.body, '');
  });

  it('answers a batch with an array of responses', async () => {
    const res = await postMcp(h.site, [rpc('ping'), rpc('tools/list')]);
    assert.equal(res.statusCode, 200);
    const answers = res.json();
    assert.ok(Array.isArray(answers));
    assert.deepEqual(answers[0].result, {});
    assert.equal(answers[1].result.tools.length, 4);
  });

  for (const [label, body] of [
    ['malformed JSON', '{"jsonrpc": "2.0", "id": 1, "method": '],
    ['an empty body', ''],
  ] as const) {
    it(`answers ${label} with HTTP 400 and JSON-RPC -32700 (not the REST envelope)`, async () => {
      const res = await postMcp(h.site, body);
      assert.equal(res.statusCode, 400);
      const answer = res.json();
      assert.equal(answer.jsonrpc, '2.0');
      assert.equal(answer.id, null);
      assert.equal(answer.error.code, -32700);
      assert.equal(answer.error.message, 'Parse error: Invalid JSON');
    });
  }

  it('refuses a body that is not application/json (415) and a client that cannot accept SSE (406)', async () => {
    const text = await postMcp(h.site, JSON.stringify(rpc('ping')), { 'content-type': 'text/plain' });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().jsonrpc, '2.0');
    const accept = await postMcp(h.site, rpc('ping'), { accept: 'application/json' });
    assert.equal(accept.statusCode, 406);
  });

  for (const method of ['GET', 'DELETE', 'HEAD'] as const) {
    it(`${method} /mcp is 405 with Allow: POST (no SSE stream, no session)`, async () => {
      const res = await h.site.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'POST');
      if (method !== 'HEAD') assert.equal(res.json().error.code, -32000);
    });
  }

  it('refuses a foreign Origin with 403 before reading the body', async () => {
    const res = await postMcp(h.site, rpc('tools/list'), { origin: 'https://evil.example.com' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: origin https://evil.example.com is not allowed' },
      id: null,
    });
    const get = await h.site.inject({ method: 'GET', url: '/mcp', headers: { origin: 'null' } });
    assert.equal(get.statusCode, 403);
    // The check belongs to /mcp alone: public documents stay readable from any origin.
    const catalog = await h.site.inject({
      method: 'GET',
      url: '/.well-known/api-catalog',
      headers: { origin: 'https://evil.example.com' },
    });
    assert.equal(catalog.statusCode, 200);
  });

  for (const origin of [SITE_URL, GATEWAY_URL, 'http://localhost:6274', 'http://127.0.0.1:9000']) {
    it(`accepts Origin ${origin} and lets that origin read the answer (CORS)`, async () => {
      const res = await postMcp(h.site, rpc('ping'), { origin });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.equal(res.headers.vary, 'Origin');
    });
  }

  it('answers a CORS preflight from an allowed origin, and refuses one from a foreign origin', async () => {
    const ok = await h.site.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin: SITE_URL, 'access-control-request-method': 'POST' },
    });
    assert.equal(ok.statusCode, 204);
    assert.equal(ok.headers['access-control-allow-origin'], SITE_URL);
    assert.match(String(ok.headers['access-control-allow-headers']), /Mcp-Protocol-Version/);
    const foreign = await h.site.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin: 'https://evil.example.com' },
    });
    assert.equal(foreign.statusCode, 403);
  });

  it('carries x-request-id like every other response', async () => {
    const res = await postMcp(h.site, rpc('ping'), { 'x-request-id': 'mcp-test-1' });
    assert.equal(res.headers['x-request-id'], 'mcp-test-1');
  });

  it('lists four read-only tools, each with a title, an input schema and an output schema', async () => {
    const { tools } = (await postMcp(h.site, rpc('tools/list'))).json().result;
    assert.deepEqual(
      tools.map((tool: any) => tool.name),
      ['site_overview', 'list_pages', 'lookup_policy', 'lookup_api_catalog'],
    );
    for (const tool of tools) {
      assert.equal(typeof tool.title, 'string', tool.name);
      assert.equal(typeof tool.description, 'string', tool.name);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
      assert.equal(tool.annotations.readOnlyHint, true, tool.name);
      assert.equal(tool.annotations.openWorldHint, false, tool.name);
    }
    const listPages = tools.find((tool: any) => tool.name === 'list_pages');
    assert.deepEqual(listPages.inputSchema.properties.kind.enum, ['page', 'policy']);
    assert.equal(listPages.inputSchema.properties.limit.maximum, 100);
    assert.equal(listPages.inputSchema.properties.limit.default, 20);
    assert.deepEqual(tools.find((tool: any) => tool.name === 'lookup_policy').inputSchema.required, [
      'policy',
    ]);
  });

  it('reports invalid tool arguments as a tool error naming the argument', async () => {
    const res = await postMcp(h.site, rpc('tools/call', { name: 'list_pages', arguments: { limit: 0 } }));
    const result = res.json().result;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /limit/);
    const unknown = await postMcp(
      h.site,
      rpc('tools/call', { name: 'list_pages', arguments: { kinds: 'policy' } }),
    );
    assert.equal(unknown.json().result.isError, true, 'unknown arguments are refused, not ignored');
  });

  it('answers with JSON-RPC errors for an oversized body, not the REST envelope', async (t) => {
    const small = await startSite(t, { env: { MAX_BODY_BYTES: '1024' } });
    const res = await postMcp(small.site, { ...rpc('ping'), params: { padding: 'x'.repeat(2000) } });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().jsonrpc, '2.0');
    assert.equal(res.json().error.code, -32600);
  });
});

describe('POST /mcp: configured origins (MCP_ALLOWED_ORIGINS)', () => {
  let app: FastifyInstance;
  before(async () => {
    const config = loadConfig({ DATA_DIR: ':memory:', SURFACES: 'site', PUBLIC_SITE_URL: SITE_URL }, []);
    app = createBaseApp({ logger: createLogger({ level: 'silent' }), maxBodyBytes: config.maxBodyBytes });
    await registerSiteDiscovery(app, config, { mcpAllowedOrigins: ['https://app.example.org'] });
    await app.ready();
  });
  after(() => app.close());

  it('accepts an origin from the allow-list and still refuses others', async () => {
    assert.equal((await postMcp(app, rpc('ping'), { origin: 'https://app.example.org' })).statusCode, 200);
    assert.equal((await postMcp(app, rpc('ping'), { origin: 'https://other.example.org' })).statusCode, 403);
  });

  it('refuses a malformed allow-list entry at start-up', async () => {
    const config = loadConfig({ DATA_DIR: ':memory:', SURFACES: 'site' }, []);
    const bare = createBaseApp({
      logger: createLogger({ level: 'silent' }),
      maxBodyBytes: config.maxBodyBytes,
    });
    await assert.rejects(
      registerSiteDiscovery(bare, config, { mcpAllowedOrigins: ['app.example.org'] }),
      /allowed MCP origin 'app.example.org' must be a scheme, host and optional port/,
    );
    await bare.close();
  });
});
