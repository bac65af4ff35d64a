import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';
import { threeCloudProviders, vertexKeyFile } from '../helpers/three-cloud-slot.ts';

/**
 * One slot serving Claude from Anthropic, Bedrock and Vertex (CONTRACT 6.4, 5.6): three
 * deployments of three kinds, each with its own model map. A Claude Code session stays on one
 * deployment while it is healthy; when that one fails, the request falls over to another, whose
 * lane is the same-vendor lane of its own cloud.
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const BODY =
  '{"model":"provider-a/claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}';

describe('Claude from anthropic + bedrock + vertex deployments in one slot', () => {
  let anthropic: MockAnthropicServer;
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let keyFile: string;
  let anthropicClosed = false;
  before(async () => {
    anthropic = await startMockAnthropic();
    bedrock = await startMockBedrock({ region: 'us-east-1' });
    vertex = await startMockVertex();
    keyFile = vertexKeyFile(vertex);
  });
  const gw = shareGateway(() => ({
    file: { providers: threeCloudProviders({ anthropic, bedrock, vertex, keyFile }) },
  }));
  after(async () => {
    await Promise.all([anthropicClosed ? undefined : anthropic.close(), bedrock.close(), vertex.close()]);
  });

  /** One turn of the session: its answer's status and the deployment the ledger names. */
  async function turn(session: Record<string, string>): Promise<string | null> {
    const reply = await postMessages(gw, BODY, '', session);
    assert.equal(reply.statusCode, 200, reply.body);
    assert.equal(JSON.parse(reply.body).type, 'message');
    const row = await onlyLedgerRow(gw, String(reply.headers['request-id']));
    // Where the deployment's modelMap sent another id, the ledger keeps the client's name beside it.
    assert.equal(row.clientModel, row.deployment === 'anthropic' ? undefined : 'claude-sonnet-4-5');
    return row.deployment;
  }

  it('keeps a session on one deployment, falls over when it fails, and stays on the new one', async () => {
    const session = { 'x-claude-code-session-id': 'session-three-clouds' };
    const served = new Set<string | null>();
    for (let index = 0; index < 5; index++) served.add(await turn(session));
    assert.equal(served.size, 1, `one deployment served the session: ${[...served].join(', ')}`);
    const first = [...served][0] as string;
    // The session's deployment now fails every call (many queued failures, or the server gone).
    for (let i = 0; i < 40; i++) {
      if (first === 'bedrock') bedrock.failNext(503, 'ServiceUnavailableException');
      if (first === 'vertex')
        vertex.failNext(503, { error: { code: 503, message: 'unavailable', status: 'UNAVAILABLE' } });
    }
    if (first === 'anthropic') {
      anthropicClosed = true;
      await anthropic.close();
    }
    const second = await turn(session);
    assert.ok(second !== null && second !== first, `fell over from ${first} to ${second}`);
    for (let index = 0; index < 3; index++) assert.equal(await turn(session), second);
  });

  it('sent each cloud its own model id in its own lane', () => {
    for (const request of bedrock.requests)
      assert.equal(request.modelId, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    for (const request of vertex.requests) assert.equal(request.model, 'claude-sonnet-4-5@20250929');
    assert.ok(bedrock.requests.every((request) => request.operation.startsWith('invoke')));
    assert.ok(vertex.requests.every((request) => request.method === 'rawPredict'));
  });
});
