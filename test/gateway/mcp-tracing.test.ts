import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS, rpc } from '../helpers/mcp-http.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const CLIENT = 3;
const ERROR = 2;

describe('an MCP tool call in the trace', () => {
  const kit = new McpToolServer();
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
    await kit.start();
  });
  after(async () => {
    await kit.stop();
    await receiver.close();
  });
  const gw = shareGateway(() => ({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    file: {
      mcp: { servers: { kit: { url: kit.url } } },
      apps: [{ name: 'agent', secret: 'agent-secret-0123456789', mcp: { allow: ['kit/*'] } }],
    },
  }));
  const call = (name: string, args: Record<string, unknown>) =>
    gw.gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, authorization: 'Bearer agent:agent-secret-0123456789' },
      payload: JSON.stringify(rpc('tools/call', { name, arguments: args })),
    });

  it('is a CLIENT span execute_tool <tool> under the request span, naming the tool and server, never the arguments', async () => {
    const res = await call('kit__echo', { text: 'an argument that must never reach a span' });
    assert.equal(res.json().result.content[0].text, 'echo: an argument that must never reach a span');
    await gw.app.tracing?.flush();
    const request = receiver.spans.find(
      (s) => s.attributes['gateway.request_id'] === res.headers['x-request-id'],
    );
    assert.ok(request);
    assert.equal(request.attributes['gateway.operation'], 'mcp_tool');
    assert.equal(request.attributes['gateway.front_door'], 'mcp');
    assert.equal(request.attributes['gen_ai.tool.name'], 'echo');
    const tool = receiver.spans.find((s) => s.parentSpanId === request.spanId);
    assert.equal(tool?.name, 'execute_tool echo');
    assert.equal(tool?.kind, CLIENT);
    assert.deepEqual(
      [tool?.attributes['gen_ai.operation.name'], tool?.attributes['gateway.mcp.server']],
      ['execute_tool', 'kit'],
    );
    assert.doesNotMatch(JSON.stringify(receiver.spans), /must never reach a span/);
  });

  it('marks a failed call in error', async () => {
    await kit.stop();
    const res = await call('kit__echo', { text: 'down' });
    assert.equal(res.json().result.isError, true);
    await gw.app.tracing?.flush();
    const request = receiver.spans.find(
      (s) => s.attributes['gateway.request_id'] === res.headers['x-request-id'],
    );
    const tool = receiver.spans.find((s) => s.parentSpanId === request?.spanId);
    assert.equal(tool?.status.code, ERROR);
    assert.equal(tool?.attributes['error.type'], 'upstream_error');
    await kit.start();
  });
});
