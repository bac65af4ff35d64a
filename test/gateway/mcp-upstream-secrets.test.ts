import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS, rpc } from '../helpers/mcp-http.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';

const KIT_TOKEN = 'kit-upstream-secret-5b1e';
const KIT_KEY = 'kit-api-key-secret-77d0';
const LOCKED_TOKEN = 'locked-upstream-secret-9c2a';
const BROKEN_TOKEN = 'QZXJ-broken-upstream-secret-3e8b';
const GONE_TOKEN = 'gone-upstream-secret-1f4e';
/** Every configured secret, and the start of the one a refusal echoes near the cut of its text. */
const SECRETS = [KIT_TOKEN, KIT_KEY, LOCKED_TOKEN, BROKEN_TOKEN, GONE_TOKEN, 'QZXJ'];
/**
 * Places the echoed token at the 300th character of the error text the gateway shortens
 * ("Streamable HTTP error: Error POSTing to endpoint: " is 50 characters, then this padding and
 * "invalid_token: Bearer "): a text cut before its secrets were would keep the token's start.
 */
const PADDING = 'x'.repeat(224);

/**
 * Upstreams that fail every request, echoing the Authorization header they got: at /locked with
 * 401 (a token refused), at /broken with 500.
 */
async function startRefusingServer(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    const locked = request.url === '/locked';
    response.writeHead(locked ? 401 : 500, {
      'content-type': 'text/plain',
      ...(locked ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {}),
    });
    response.end(`${PADDING}invalid_token: ${request.headers.authorization ?? ''}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} repeats ${secret}`);
}

/** An upstream's configured headers (its bearer token) go to that upstream and nowhere else. */
describe("an upstream MCP server's secret headers never leave the gateway", () => {
  const kit = new McpToolServer();
  let refusing: Server | undefined;
  let refusingUrl = '';
  let goneUrl = '';
  const logLines: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  before(async () => {
    await kit.start();
    refusing = await startRefusingServer();
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    goneUrl = await deadUrl();
  });
  after(async () => {
    await kit.stop();
    refusing?.closeAllConnections();
    await new Promise<void>((resolve) => (refusing ? refusing.close(() => resolve()) : resolve()));
  });
  const gw = shareGateway(() => ({
    env: { LOG_LEVEL: 'trace' },
    logs,
    file: {
      mcp: {
        servers: {
          kit: { url: kit.url, headers: { Authorization: `Bearer ${KIT_TOKEN}`, 'x-api-key': KIT_KEY } },
          locked: { url: `${refusingUrl}/locked`, headers: { Authorization: `Bearer ${LOCKED_TOKEN}` } },
          broken: { url: `${refusingUrl}/broken`, headers: { Authorization: `Bearer ${BROKEN_TOKEN}` } },
          gone: { url: goneUrl, headers: { Authorization: `Bearer ${GONE_TOKEN}` } },
        },
        callTimeoutMs: 2_000,
      },
      apps: [
        {
          name: 'agent',
          secret: 'agent-secret-0123456789',
          mcp: { allow: ['kit/*', 'locked/*', 'broken/*', 'gone/*'] },
        },
      ],
    },
  }));
  const post = (body: unknown) =>
    gw.gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, authorization: 'Bearer agent:agent-secret-0123456789' },
      payload: JSON.stringify(body),
    });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await post(rpc('tools/call', { name, arguments: args }));
    assert.equal(answer.statusCode, 200);
    assertNoSecret(answer.payload, `${name}'s answer`);
    assertNoSecret(JSON.stringify(answer.headers), `${name}'s headers`);
    return answer.json().result as { isError?: boolean; content: { text: string }[] };
  };

  it('sends the headers to their upstream, and a listing or a call repeats none of them', async () => {
    const listed = await post(rpc('tools/list'));
    assertNoSecret(listed.payload, 'the listing');
    assert.deepEqual(
      listed.json().result.tools.map((tool: { name: string }) => tool.name),
      ['kit__echo', 'kit__fail', 'kit__slow'],
      'the failing and the down servers are left out of the listing',
    );
    assert.equal((await call('kit__echo', { text: 'hi' })).content[0]?.text, 'echo: hi');
    assert.ok(kit.authorizations.includes(`Bearer ${KIT_TOKEN}`), 'the upstream got its token');
    assert.equal((await call('kit__fail')).isError, true);
  });

  it('answers an upstream that refuses the token with 401 by naming the refusal, not repeating its body', async () => {
    const refused = await call('locked__anything');
    assert.equal(refused.isError, true);
    assert.equal(
      refused.content[0]?.text,
      "MCP server 'locked' refused the gateway's credentials (HTTP 401): its headers in the configuration may be wrong or expired.",
    );
  });

  it('cuts the secrets from the text of an upstream that fails echoing them, before the text is shortened', async () => {
    const failed = await call('broken__anything');
    assert.equal(failed.isError, true);
    const text = failed.content[0]?.text ?? '';
    assert.match(
      text,
      /^MCP server 'broken' failed: .*Error POSTing to endpoint: x+invalid_token: \[redacted\]$/,
    );
    assert.doesNotMatch(text, /127\.0\.0\.1/);
  });

  it('answers an upstream that is down without its headers or URL', async () => {
    const down = await call('gone__anything');
    assert.equal(down.isError, true);
    assert.match(down.content[0]?.text ?? '', /MCP server 'gone' could not be reached/);
  });

  it('keeps them out of the logs, /metrics and the ledger', async () => {
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
    const tools = rows.filter((row) => row.operation === 'mcp_tool');
    assert.deepEqual(tools.map((row) => `${row.mcpServer} ${row.status}`).sort(), [
      'broken 502',
      'gone 502',
      'kit 200',
      'kit 200',
      'locked 502',
    ]);
    assertNoSecret(JSON.stringify(rows), 'the ledger');
    const scrape = await gw.get('/metrics', { auth: false });
    assert.equal(scrape.status, 200);
    assert.match(scrape.text, /gateway_mcp_tool_calls_total\{[^}]*server="locked"/);
    assertNoSecret(scrape.text, '/metrics');
    assert.ok(logLines.length > 0, 'the logs were captured');
    assertNoSecret(logLines.join(''), 'the logs');
  });
});
