import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Harness, shareGateway } from '../helpers/gateway-harness.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';

/*
 * MCP allow lists set through the admin API (CONTRACT 6.5): an app's `mcp.allow` bounded by its
 * team's, read by POST /mcp from the governance snapshot, so a change holds without a restart.
 */

const ADMIN_TOKEN = 'admin-token-for-the-mcp-allow-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const YAML_SECRET = 'yaml-agent-secret-0123456789';

function admin(gw: Harness, method: string, url: string, body?: unknown) {
  return gw.request({
    method: method as 'GET',
    url: `/admin/api${url}`,
    headers: { ...ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

describe('MCP allow lists set through the admin API', () => {
  const kit = new McpToolServer();
  const clients: Client[] = [];
  before(() => kit.start());
  after(() => kit.stop());
  // Declared after the upstream: the gateway closes first, its clients before it.
  const gw = shareGateway(() => ({
    env: { ADMIN_TOKEN },
    file: {
      mcp: { servers: { kit: { url: kit.url } }, listTimeoutMs: 10_000 },
      apps: [{ name: 'yaml-agent', secret: YAML_SECRET, mcp: { allow: ['kit/echo'] } }],
    },
  }));
  let gatewayUrl = '';
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    gatewayUrl = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/mcp`;
  });
  after(() => Promise.all(clients.map((client) => client.close())));

  async function connect(credential: string): Promise<Client> {
    const client = new Client({ name: 'mcp-allow-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(gatewayUrl), {
      requestInit: { headers: { Authorization: `Bearer ${credential}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const listed = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
  const call = async (client: Client, name: string) =>
    (await client.callTool({ name, arguments: { text: 'hi' } })) as CallToolResult;

  /** Makes an app through the API and answers its first key's credential. */
  async function makeApp(body: Record<string, unknown>): Promise<string> {
    const made = await admin(gw, 'POST', '/apps', body);
    assert.equal(made.status, 201, made.text);
    return made.body.key.secret as string;
  }

  async function assertRefused(client: Client, name: string): Promise<void> {
    const callsBefore = kit.calls;
    await assert.rejects(call(client, name), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.match(error.message, /is not allowed for app/);
      return true;
    });
    assert.equal(kit.calls, callsBefore, 'a refused call never reaches the upstream');
  }

  it('an app made with mcp.allow lists and calls only those tools; a PATCH narrows it at once', async () => {
    const credential = await makeApp({ name: 'api-agent', mcp: { allow: ['kit/echo', 'kit/fail'] } });
    const client = await connect(credential);
    assert.deepEqual(await listed(client), ['kit__echo', 'kit__fail']);
    const echoed = await call(client, 'kit__echo');
    assert.notEqual(echoed.isError, true);
    await assertRefused(client, 'kit__slow');

    const patched = await admin(gw, 'PATCH', '/apps/api-agent', { mcp: { allow: ['kit/echo'] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await listed(client), ['kit__echo']);
    await assertRefused(client, 'kit__fail');

    const widened = await admin(gw, 'PATCH', '/apps/api-agent', { mcp: { allow: ['kit/*'] } });
    assert.equal(widened.status, 200, widened.text);
    assert.deepEqual(await listed(client), ['kit__echo', 'kit__fail', 'kit__slow']);

    assert.equal((await admin(gw, 'PATCH', '/apps/api-agent', { mcp: null })).status, 200);
    assert.deepEqual(await listed(client), [], 'without a list, nothing');
  });

  it("a team's list bounds its apps' lists, and is the list of an app without one", async () => {
    const team = await admin(gw, 'POST', '/teams', {
      name: 'tools',
      mcp: { allow: ['kit/echo', 'kit/slow'] },
    });
    assert.equal(team.status, 201, team.text);
    const wide = await connect(await makeApp({ name: 'wide', team: 'tools', mcp: { allow: ['kit/*'] } }));
    const inherits = await connect(await makeApp({ name: 'inherits', team: 'tools' }));
    const narrow = await connect(
      await makeApp({ name: 'narrow', team: 'tools', mcp: { allow: ['kit/fail', 'kit/echo'] } }),
    );
    assert.deepEqual(await listed(wide), ['kit__echo', 'kit__slow']);
    assert.deepEqual(await listed(inherits), ['kit__echo', 'kit__slow']);
    assert.deepEqual(await listed(narrow), ['kit__echo'], 'kit/fail is outside the team');
    await assertRefused(wide, 'kit__fail');
    await assertRefused(narrow, 'kit__fail');

    const narrowed = await admin(gw, 'PATCH', '/teams/tools', { mcp: { allow: ['kit/slow'] } });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.deepEqual(await listed(wide), ['kit__slow']);
    assert.deepEqual(await listed(narrow), []);
    await assertRefused(wide, 'kit__echo');

    assert.equal((await admin(gw, 'PATCH', '/teams/tools', { mcp: null })).status, 200);
    assert.deepEqual(await listed(wide), ['kit__echo', 'kit__fail', 'kit__slow'], 'unbounded again');
    assert.deepEqual(await listed(inherits), [], 'neither list: nothing');
  });

  it('a YAML app keeps its list, and a PATCH of it holds too', async () => {
    const client = await connect(`yaml-agent:${YAML_SECRET}`);
    assert.deepEqual(await listed(client), ['kit__echo']);
    await assertRefused(client, 'kit__fail');
    assert.equal(
      (await admin(gw, 'PATCH', '/apps/yaml-agent', { mcp: { allow: ['kit/fail'] } })).status,
      200,
    );
    assert.deepEqual(await listed(client), ['kit__fail']);
  });

  it('refuses an entry that is not server/* or server/tool with a 400', async () => {
    for (const allow of [['kit'], ['/echo'], ['kit/']]) {
      const answer = await admin(gw, 'POST', '/apps', { name: 'bad-entry', mcp: { allow } });
      assert.equal(answer.status, 400, `${allow[0]}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'invalid_request');
      assert.match(answer.body.error.message, /^\/mcp\/allow: item 0/);
    }
  });
});
