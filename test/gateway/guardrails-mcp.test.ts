import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';

const EMAIL = 'carol.private@example.org';
const KEY = 'AKIAIOSFODNN7EXAMPLE';

/**
 * The MCP phase (CONTRACT 6.6): a tool call through the MCP gateway has its arguments and its
 * result guarded; a mask reaches the server and the client masked, a block is a tool error naming
 * the guard (the session goes on) and the call's row says `guardrail_blocked`.
 */
describe('MCP guards', () => {
  const kit = new McpToolServer();
  before(() => kit.start());
  after(() => kit.stop());
  const gw = shareGateway(() => ({
    file: {
      mcp: { servers: { kit: { url: kit.url } } },
      apps: [
        { name: 'agent', secret: 'agent-secret-0123456789', mcp: { allow: ['kit/*'] } },
        { name: 'locked', secret: 'locked-secret-0123456789', mcp: { allow: ['kit/*'] } },
      ],
      guardrails: {
        guards: {
          'mcp-pii': { type: 'pii', phase: 'mcp', action: 'mask' },
          'mcp-secrets': { type: 'secrets', phase: 'mcp', action: 'block' },
        },
        apps: { agent: ['mcp-pii'], locked: ['mcp-secrets'] },
      },
    },
  }));
  let url = '';
  const clients: Client[] = [];
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/mcp`;
  });
  after(() => Promise.all(clients.map((client) => client.close())));

  async function callEcho(app: string, text: string): Promise<CallToolResult> {
    const client = new Client({ name: 'guard-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${app}:${app}-secret-0123456789` } },
      }),
    );
    clients.push(client);
    return (await client.callTool({ name: 'kit__echo', arguments: { text } })) as CallToolResult;
  }

  it('masks personal data in the arguments and the result', async () => {
    const result = await callEcho('agent', `write to ${EMAIL}`);
    assert.notEqual(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: 'echo: write to [REDACTED:EMAIL]' }]);
  });

  it('blocks a secret in the arguments before the server sees it: a tool error, the row guardrail_blocked', async () => {
    const result = await callEcho('locked', `use ${KEY}`);
    assert.equal(result.isError, true);
    const text = (result.content[0] as { text: string }).text;
    assert.match(text, /^guardrail_blocked: the guard 'mcp-secrets' blocked this tool call/);
    assert.equal(JSON.stringify(result).includes(KEY), false);
    await gw.app.recorder.flush();
    const rows = (await gw.app.storage.usage.readRecords({ limit: 100 })).filter(
      (row) => row.app === 'locked',
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.errorCode, 'guardrail_blocked');
    assert.equal(rows[0]?.guardrails, 'mcp-secrets:mcp:block');
    const agent = (await gw.app.storage.usage.readRecords({ limit: 100 })).find((row) => row.app === 'agent');
    assert.equal(agent?.guardrails, 'mcp-pii:mcp:mask');
    assert.equal(
      JSON.stringify(await gw.app.storage.usage.readRecords({ limit: 100 })).includes(EMAIL),
      false,
    );
  });
});
