import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listenForClients, postMessages } from '../helpers/anthropic-door-client.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runClaude } from '../helpers/run-claude.ts';
import type { ScriptedReply } from '../helpers/scripted-reply.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';
import { threeCloudProviders, vertexKeyFile } from '../helpers/three-cloud-slot.ts';

/**
 * The real Claude Code on one slot that serves Claude from Anthropic, Bedrock and Vertex (CONTRACT
 * 6.4, 5.6): a session (`--session-id`, sent as `x-claude-code-session-id`) runs a tool loop on one
 * deployment; that deployment then fails every call, and the same session, continued, falls over to
 * another deployment and stays there for its whole tool loop. Each turn reached its cloud in that
 * cloud's same-vendor lane with the deployment's mapped model.
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const skip = skipUnlessInstalled('claude');
type Deployment = 'anthropic' | 'bedrock' | 'vertex';

describe('Claude Code on a slot of anthropic + bedrock + vertex deployments', { skip }, () => {
  let anthropic: MockAnthropicServer;
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let keyFile: string;
  let proxy: RecordingProxy;
  before(async () => {
    anthropic = await startMockAnthropic();
    bedrock = await startMockBedrock({ region: 'us-east-1' });
    vertex = await startMockVertex();
    keyFile = vertexKeyFile(vertex);
  });
  const gw = shareGateway(() => ({
    file: { providers: threeCloudProviders({ anthropic, bedrock, vertex, keyFile }) },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await Promise.all([anthropic.close(), bedrock.close(), vertex.close()]);
  });

  const replyNext = (deployment: Deployment, reply: ScriptedReply) => {
    if (deployment === 'anthropic') anthropic.replyNext(reply);
    else if (deployment === 'bedrock') bedrock.replyNext(reply);
    else vertex.replyNext(reply);
  };
  const failAlways = (deployment: Deployment) => {
    for (let i = 0; i < 40; i++) {
      if (deployment === 'anthropic')
        anthropic.failNext(1, {
          status: 529,
          body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        });
      if (deployment === 'bedrock') bedrock.failNext(503, 'ServiceUnavailableException');
      if (deployment === 'vertex')
        vertex.failNext(503, { error: { code: 503, message: 'unavailable', status: 'UNAVAILABLE' } });
    }
  };

  /** Where the gateway sends this session now: one plain turn, as Claude Code's header names it. */
  async function probe(session: string): Promise<Deployment> {
    const reply = await postMessages(
      gw,
      '{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}',
      '',
      { 'x-claude-code-session-id': session },
    );
    assert.equal(reply.statusCode, 200, reply.body);
    return (await onlyLedgerRow(gw, String(reply.headers['request-id']))).deployment as Deployment;
  }

  /** One `claude -p` run (Read a file, then answer) in the session; the deployments its turns took. */
  async function run(session: string, deployment: Deployment, workdir: string, home: string, first: boolean) {
    replyNext(deployment, {
      toolCalls: [
        {
          id: `toolu_${randomUUID().slice(0, 8)}`,
          name: 'Read',
          arguments: { file_path: join(workdir, 'notes.txt') },
        },
      ],
    });
    replyNext(deployment, { text: 'Lighthouse.' });
    const sentBefore = proxy.requests.length;
    const result = await runClaude({
      baseUrl: proxy.origin,
      apiKey: `${APP}:${SECRET}`,
      prompt: 'Read notes.txt and tell me its first word.',
      workdir,
      home,
      files: { 'notes.txt': 'Lighthouse keepers keep lights.\n' },
      args: ['--model', 'claude-sonnet-4-5', ...(first ? ['--session-id', session] : ['--resume', session])],
      timeoutMs: 90_000,
    });
    assert.equal(result.timedOut, false, result.stderr);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.equal(result.result?.['result'], 'Lighthouse.', result.stdout);
    const sent = proxy.requests
      .slice(sentBefore)
      .map((request, index) => ({ request, index: sentBefore + index }));
    const turns = sent.filter(({ request }) => request.path.startsWith('/v1/messages'));
    assert.equal(turns.length, 2, 'the Read call, then the answer');
    const served: string[] = [];
    for (const { request, index } of turns) {
      assert.equal(request.headers['x-claude-code-session-id'], session, 'Claude Code names its session');
      const id = String(proxy.answers[index]?.headers['request-id']);
      served.push(String((await onlyLedgerRow(gw, id)).deployment));
    }
    return served;
  }

  it('keeps the session on one deployment, falls over when it fails, and stays on the new one', async (t) => {
    const session = randomUUID();
    const workdir = makeTempDir('claude-three-clouds');
    const home = makeTempDir('claude-three-clouds-home');
    try {
      const first = await probe(session);
      const before = await run(session, first, workdir.path, home.path, true);
      t.diagnostic(`first run served by ${before.join(', ')}`);
      assert.deepEqual(before, [first, first]);

      failAlways(first);
      const second = await probe(session);
      assert.notEqual(second, first, `fell over from ${first}`);
      const after = await run(session, second, workdir.path, home.path, false);
      t.diagnostic(`after ${first} failed, the resumed session was served by ${after.join(', ')}`);
      assert.deepEqual(after, [second, second]);

      // Each cloud got its own model id in its own lane.
      assert.ok(
        bedrock.requests.every((request) => request.modelId.startsWith('us.anthropic.claude-sonnet-4-5')),
      );
      assert.ok(bedrock.requests.every((request) => request.operation.startsWith('invoke')));
      assert.ok(vertex.requests.every((request) => request.model === 'claude-sonnet-4-5@20250929'));
      assert.ok(anthropic.requests.every((request) => request.body?.model === 'claude-sonnet-4-5'));
    } finally {
      workdir.remove();
      home.remove();
    }
  });
});
