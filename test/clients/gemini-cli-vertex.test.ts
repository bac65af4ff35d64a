import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { clientPackageVersion, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import {
  functionResponseOf,
  LOOP_ANSWER,
  LOOP_PROMPT,
  LOOP_REPLIES,
  NOTES,
} from '../helpers/gemini-cli-loop.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runGemini } from '../helpers/run-gemini.ts';

/**
 * The Gemini door's same-vendor lane onto a vertex slot (CONTRACT 6.3, 6.4): a Gemini model's
 * request goes to Vertex's `publishers/google/models/{m}:streamGenerateContent` with the slot's
 * service-account token, the client's bytes as the body. The real Gemini CLI (a tool loop) and
 * @google/genai (a whole answer, countTokens) through the gateway, the recording Vertex mock
 * behind it, a recording proxy between the client and the gateway to compare the bytes.
 */

const skip = skipUnlessInstalled('gemini');
const KEY = `${APP}:${SECRET}`;
const PUBLISHER = '/v1/projects/test-project/locations/global/publishers/google/models';

describe('the Gemini door onto a vertex slot', () => {
  let mock: MockVertexServer;
  let keyFile: string;
  let proxy: RecordingProxy;
  before(async () => {
    mock = await startMockVertex();
    keyFile = mock.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'vertex',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_PROJECT: mock.project,
      PROVIDER_A_LOCATION: 'global',
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
    },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await mock.close();
  });
  beforeEach(() => {
    mock.requests.length = 0;
    proxy.requests.length = 0;
  });

  it(`Gemini CLI ${clientPackageVersion('@google/gemini-cli') ?? ''}: a tool loop, each body reaching Vertex byte for byte with the slot's token`, {
    skip,
  }, async () => {
    for (const reply of LOOP_REPLIES) mock.replyNext(reply);
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: LOOP_PROMPT,
      model: 'provider-a/gemini-2.5-flash',
      files: { 'notes.txt': NOTES },
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['response'], LOOP_ANSWER);
    assert.equal(proxy.requests.length, 3);
    assert.equal(mock.requests.length, 3);
    for (const [index, sent] of proxy.requests.entries()) {
      const received = mock.requests[index];
      assert.equal(sent.path, '/v1beta/models/provider-a/gemini-2.5-flash:streamGenerateContent?alt=sse');
      assert.equal(received?.path, `${PUBLISHER}/gemini-2.5-flash:streamGenerateContent?alt=sse`);
      assert.equal(received?.raw.toString('utf8'), sent.raw.toString('utf8'), `body ${index} byte for byte`);
      assert.match(String(received?.headers['authorization']), /^Bearer ya29\.mock-/);
      assert.equal(received?.headers['x-goog-api-key'], undefined, "the client's key stays at the gateway");
    }
    assert.match(JSON.stringify(functionResponseOf(mock.requests[1]?.body, 'read_file')), /heliotrope/);
    assert.match(
      JSON.stringify(functionResponseOf(mock.requests[2]?.body, 'run_shell_command')),
      /tool-loop-ok/,
    );
    assert.deepEqual(mock.refusals, []);
  });

  it('@google/genai: generateContent by the lane (bytes, cost), countTokens counted by Vertex', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: proxy.origin } });
    mock.replyNext({ text: 'Paris.' });
    const answer = await ai.models.generateContent({
      model: 'provider-a/gemini-2.5-flash',
      contents: 'Capital of France?',
      config: { temperature: 0.2, topK: 3 },
    });
    assert.equal(answer.text, 'Paris.');
    assert.ok(Number(answer.sdkHttpResponse?.headers?.['x-gateway-cost-usd']) > 0);
    // topK reaches Vertex: the lane sends what the cross-vendor reading would have left out.
    assert.equal(mock.requests[0]?.raw.toString('utf8'), proxy.requests[0]?.raw.toString('utf8'));
    assert.equal(mock.requests[0]?.path, `${PUBLISHER}/gemini-2.5-flash:generateContent`);
    const text = 'The quick brown fox jumps over the lazy dog.';
    const counted = await ai.models.countTokens({ model: 'provider-a/gemini-2.5-flash', contents: text });
    assert.equal(counted.totalTokens, Math.ceil(text.length / 4));
    assert.equal(mock.requests[1]?.path, `${PUBLISHER}/gemini-2.5-flash:countTokens`);
    assert.equal(mock.requests[1]?.raw.toString('utf8'), proxy.requests[1]?.raw.toString('utf8'));
    // A Claude model on the same slot is not Google's to count: the gateway's estimate, no call.
    const claude = await ai.models.countTokens({
      model: 'provider-a/claude-sonnet-4-5@20250929',
      contents: text,
    });
    assert.ok(
      (claude.totalTokens ?? 0) > 5 && claude.totalTokens !== Math.ceil(text.length / 4),
      String(claude.totalTokens),
    );
    assert.equal(mock.requests.length, 2);
  });

  it("the response cache keeps the lane on Vertex: Vertex's answer kept, the second request a hit", async () => {
    mock.replyNext({ text: 'Kept by the gateway.' });
    const ask = () =>
      fetch(`${proxy.origin}/v1beta/models/provider-a/gemini-2.5-flash:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY, 'x-gateway-cache': 'use' },
        body: '{"contents": [{"role": "user", "parts": [{"text": "Keep this on Vertex"}]}]}',
      });
    const first = await ask();
    const second = await ask();
    assert.deepEqual(
      [first.headers.get('x-gateway-cache'), second.headers.get('x-gateway-cache')],
      ['miss', 'hit'],
    );
    assert.equal(await second.text(), await first.text());
    assert.equal(second.headers.get('x-gateway-cost-usd'), '0');
    assert.equal(mock.requests.length, 1, 'one call to Vertex');
    assert.equal(mock.requests[0]?.raw.toString('utf8'), proxy.requests[0]?.raw.toString('utf8'));
  });
});
