import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { findTopLevelValue } from '../../src/gateway/domain/json-splice.ts';
import { BEDROCK_BETAS } from '../../src/gateway/providers/bedrock/bedrock-relay.ts';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { summarizeAnthropicRequest } from '../helpers/anthropic-request-summary.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import type { RecordedRequest } from '../helpers/mock-anthropic-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runClaude } from '../helpers/run-claude.ts';
import type { ScriptedReply } from '../helpers/scripted-reply.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';

/**
 * The real Claude Code (`claude -p`, thinking on) through the gateway's Anthropic door onto a
 * bedrock slot and a vertex slot, whose upstreams are the recording cloud mocks (SigV4 checked;
 * tokens from the service account's signed assertion). A recording proxy in front of the gateway
 * keeps what Claude Code sent; each cloud must have received those bytes but for what CONTRACT
 * 6.4/6.9 names: `model` moved to the URL (mapped by `modelMap`), `anthropic_version` (the
 * cloud's) added, on Bedrock `stream` moved to the operation and the betas into the body as
 * `anthropic_beta`, on Vertex the betas kept in the header; betas the cloud does not take left out
 * and named in `x-gateway-ignored-fields`. Every other byte (system, tools, cache_control, the
 * thinking blocks and their signatures, the tool result's image) is Claude Code's.
 */

process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const skip = skipUnlessInstalled('claude');
const BEDROCK_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_ID = 'claude-sonnet-4-5@20250929';

/** The cloud's side of one request, as the comparison needs it. */
interface CloudRequest {
  raw: Buffer;
  model: string;
  /** Whether the operation (URL) is the streamed one. */
  streamed: boolean;
  headers: Record<string, string | string[] | undefined>;
}

/** The bytes with the top-level member `key` cut out, as compact JSON writes it (and one comma). */
function cut(raw: Buffer, key: string): Buffer {
  const span = findTopLevelValue(raw, key);
  if (span === undefined) return raw;
  const name = Buffer.from(`${JSON.stringify(key)}:`);
  const start = span.start - name.length;
  assert.ok(raw.subarray(start, span.start).equals(name), `"${key}" is written compactly`);
  if (raw[span.end] === 0x2c) return Buffer.concat([raw.subarray(0, start), raw.subarray(span.end + 1)]);
  assert.equal(raw[start - 1], 0x2c, `"${key}" is a member after another`);
  return Buffer.concat([raw.subarray(0, start - 1), raw.subarray(span.end)]);
}

/** The betas a request's `anthropic-beta` header names. */
function betasOf(headers: Record<string, string | string[] | undefined>): string[] {
  return String(headers['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
}

interface Cloud {
  name: 'bedrock' | 'vertex';
  version: string;
  upstreamModel: string;
  /** The model the cloud's answer names (Vertex's Claude answers the Messages API's own id). */
  answeredModel: string;
  gw: () => Harness;
  proxy: () => RecordingProxy;
  replyNext(reply: ScriptedReply): void;
  received(): CloudRequest[];
}

/**
 * What the cloud received, pair by pair with what Claude Code sent, equals the client's bytes but
 * for the contract's list; answers the differences seen, for the test's diagnostics.
 */
function assertCloudBytes(cloud: Cloud, sent: RecordedRequest[], received: CloudRequest[]): string[] {
  assert.equal(received.length, sent.length, 'one cloud request per request Claude Code sent');
  const seen: string[] = [];
  for (const [index, request] of sent.entries()) {
    const upstream = received[index] as CloudRequest;
    const asked = betasOf(request.headers);
    const kept = asked.filter((beta) => BEDROCK_BETAS.has(beta));
    const dropped = asked.filter((beta) => !BEDROCK_BETAS.has(beta));
    const streamed = request.body.stream === true;
    assert.equal(upstream.model, cloud.upstreamModel, `request ${index}: modelMap's id in the URL`);
    let expected = cut(request.raw, 'model');
    const added = [`"anthropic_version":${JSON.stringify(cloud.version)}`];
    if (cloud.name === 'bedrock') {
      expected = cut(expected, 'stream');
      assert.equal(upstream.streamed, streamed, `request ${index}: stream moved to the operation`);
      if (kept.length > 0) added.push(`"anthropic_beta":${JSON.stringify(kept)}`);
      assert.equal(upstream.headers['anthropic-beta'], undefined, 'no beta header on Bedrock');
    } else {
      assert.equal(upstream.streamed, streamed, `request ${index}: streamRawPredict for a stream`);
      assert.deepEqual(
        betasOf(upstream.headers),
        kept,
        `request ${index}: the supported betas, in the header`,
      );
    }
    const want = `{${added.join(',')},${expected.toString('utf8').slice(1)}`;
    assert.equal(
      upstream.raw.toString('utf8'),
      want,
      `request ${index}: Claude Code's bytes but the contract's`,
    );
    assert.ok(!JSON.stringify(upstream.headers).includes(SECRET), 'the client’s key never goes upstream');
    assert.equal(upstream.headers['x-api-key'], undefined);
    seen.push(
      `request ${index} (${request.raw.length} bytes sent, ${upstream.raw.length} received): model ` +
        `${JSON.stringify(request.body.model)} → ${cloud.upstreamModel} in the URL; added ${added.join(',')}` +
        `${cloud.name === 'bedrock' ? `; "stream":${streamed} → ${upstream.streamed ? 'invoke-with-response-stream' : 'invoke'}` : `; stream kept (${upstream.streamed ? 'streamRawPredict' : 'rawPredict'})`}` +
        `; betas kept [${kept.join(',')}], left out [${dropped.join(',')}]`,
    );
  }
  return seen;
}

/** Claude Code, thinking on, reads pixel.png with its Read tool and answers: two requests. */
async function readPng(t: TestContext, cloud: Cloud): Promise<void> {
  const proxy = cloud.proxy();
  const workdir = makeTempDir(`claude-${cloud.name}`);
  try {
    const sentBefore = proxy.requests.length;
    const receivedBefore = cloud.received().length;
    cloud.replyNext({
      thinking: [{ text: 'I should look at the picture.', signature: 'c2lnLWNsb3VkLW9uZQ==' }],
      toolCalls: [
        { id: 'toolu_read_png', name: 'Read', arguments: { file_path: join(workdir.path, 'pixel.png') } },
      ],
      usage: { inputTokens: 12, cacheWrite5mTokens: 9000, cacheReadTokens: 0, outputTokens: 40 },
    });
    cloud.replyNext({
      thinking: [{ text: 'It is red.', signature: 'c2lnLWNsb3VkLXR3bw==' }],
      text: 'It is a red square.',
      usage: { inputTokens: 30, cacheReadTokens: 9000, cacheWrite5mTokens: 200, outputTokens: 20 },
    });
    const run = await runClaude({
      baseUrl: proxy.origin,
      apiKey: `${APP}:${SECRET}`,
      prompt: 'What colour is the picture in pixel.png?',
      workdir: workdir.path,
      files: { 'pixel.png': redSquarePng(16) },
      args: ['--model', 'claude-sonnet-4-5'],
      env: { MAX_THINKING_TOKENS: '31999' },
      timeoutMs: 90_000,
    });
    assert.equal(run.timedOut, false, run.stderr);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['result'], 'It is a red square.', run.stdout);
    const sent = proxy.requests
      .slice(sentBefore)
      .filter((request) => request.path.startsWith('/v1/messages'));
    const received = cloud.received().slice(receivedBefore);
    assert.equal(sent.length, 2, 'the Read call, then the answer');
    for (const line of assertCloudBytes(cloud, sent, received)) t.diagnostic(line);

    const first = summarizeAnthropicRequest(sent[0]?.headers ?? {}, sent[0]?.body ?? {});
    assert.equal((first.thinking as { type?: string } | undefined)?.type, 'enabled', 'thinking was on');
    assert.ok(
      first.cacheControlMarkers > 0,
      'Claude Code marked cache_control (it reached the cloud in the bytes)',
    );
    const second = summarizeAnthropicRequest(sent[1]?.headers ?? {}, sent[1]?.body ?? {});
    assert.deepEqual(second.signatures, ['c2lnLWNsb3VkLW9uZQ=='], 'the signature went back');
    assert.ok((second.blocks['image'] ?? 0) >= 1, 'the tool result’s image');

    // The betas the cloud did not take are named to the client.
    const dropped = betasOf(sent[0]?.headers ?? {}).filter((beta) => !BEDROCK_BETAS.has(beta));
    const ignored = proxy.answers
      .slice(sentBefore)
      .map((answer) => answer.headers['x-gateway-ignored-fields']);
    for (const header of ignored)
      assert.equal(
        header,
        dropped.length === 0 ? undefined : dropped.map((beta) => `anthropic-beta:${beta}`).join(','),
      );
    t.diagnostic(`x-gateway-ignored-fields: ${String(ignored[0])}`);

    // The ledger keeps the name Claude Code used beside the id modelMap sent (CONTRACT 6.4).
    const gw = cloud.gw();
    await gw.app.recorder.flush();
    const ids = new Set(
      proxy.answers.slice(sentBefore).map((answer) => String(answer.headers['request-id'])),
    );
    const rows = (await gw.app.storage.usage.readRecords({ limit: 10_000 })).filter((row) =>
      ids.has(row.requestId),
    );
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.clientModel, 'claude-sonnet-4-5');
      assert.equal(row.model, cloud.answeredModel, 'the model the cloud says answered (what is priced)');
      assert.equal(row.status, 200);
      assert.ok(row.costUsd > 0, 'priced');
    }
  } finally {
    workdir.remove();
  }
}

describe('Claude Code through the Anthropic door onto a bedrock slot', { skip }, () => {
  let mock: MockBedrockServer;
  let proxy: RecordingProxy;
  before(async () => {
    mock = await startMockBedrock({ region: 'us-east-1' });
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': {
          kind: 'bedrock',
          baseUrl: mock.origin,
          region: 'us-east-1',
          models: ['claude-sonnet-4-5'],
          modelMap: { 'claude-sonnet-4-5': BEDROCK_ID },
        },
      },
    },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await mock.close();
  });

  it('reads a PNG with thinking on: Bedrock receives Claude Code’s bytes but for the contract’s changes', async (t) => {
    await readPng(t, {
      name: 'bedrock',
      version: 'bedrock-2023-05-31',
      upstreamModel: BEDROCK_ID,
      answeredModel: BEDROCK_ID,
      gw: () => gw,
      proxy: () => proxy,
      replyNext: (reply) => mock.replyNext(reply),
      received: () =>
        mock.requests.map((request) => ({
          raw: request.raw,
          model: request.modelId,
          streamed: request.operation === 'invoke-with-response-stream',
          headers: request.headers,
        })),
    });
    assert.deepEqual(mock.refusals, [], 'every request signed');
    assert.ok(mock.requests.every((request) => request.auth === 'sigv4'));
  });
});

describe('Claude Code through the Anthropic door onto a vertex slot', { skip }, () => {
  let mock: MockVertexServer;
  let proxy: RecordingProxy;
  let keyFile: string;
  before(async () => {
    mock = await startMockVertex();
    keyFile = mock.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': {
          kind: 'vertex',
          baseUrl: mock.origin,
          project: mock.project,
          location: 'us-east5',
          credentialsFile: keyFile,
          models: ['claude-sonnet-4-5'],
          modelMap: { 'claude-sonnet-4-5': VERTEX_ID },
        },
      },
    },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await mock.close();
  });

  it('reads a PNG with thinking on: Vertex receives Claude Code’s bytes but for the contract’s changes', async (t) => {
    await readPng(t, {
      name: 'vertex',
      version: 'vertex-2023-10-16',
      upstreamModel: VERTEX_ID,
      answeredModel: 'claude-sonnet-4-5-20250929',
      gw: () => gw,
      proxy: () => proxy,
      replyNext: (reply) => mock.replyNext(reply),
      received: () =>
        mock.requests
          .filter((request) => request.publisher === 'anthropic')
          .map((request) => ({
            raw: request.raw,
            model: request.model,
            streamed: request.method === 'streamRawPredict',
            headers: request.headers,
          })),
    });
    assert.deepEqual(mock.refusals, [], 'every token the mock issued');
    assert.equal(mock.tokenFetches, 1, 'one token served both requests');
  });
});
