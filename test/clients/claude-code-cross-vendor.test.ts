import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { runClaude } from '../helpers/run-claude.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';

/**
 * The real Claude Code (`claude -p`) through the Anthropic door to an OpenAI slot and to a Gemini
 * slot (the cross-vendor lane of CONTRACT 5.2): with thinking on (MAX_THINKING_TOKENS 31999 on
 * claude-sonnet-4-5, as captured in test/fixtures/clients/claude-code/thinking.sent.json), it reads
 * a PNG with its Read tool, whose result holds an image block; the next turn succeeds, and the
 * recording mock shows the image in its vendor's format, thinking as its reasoning setting, and
 * no cache_control. Skipped, with the reason, when the test package is not installed.
 */

const skip = skipUnlessInstalled('claude');
const PNG = redSquarePng(16);
const PNG_BASE64 = PNG.toString('base64');
const PROMPT = 'What colour is the picture in pixel.png?';
const CLAUDE_ARGS = ['--model', 'claude-sonnet-4-5'];
const CLAUDE_ENV = { MAX_THINKING_TOKENS: '31999' };

/**
 * Claude Code, thinking on, asked about pixel.png in `workdir` through the gateway at `baseUrl`:
 * the mock's two replies (the Read call, then the answer) must already be queued; it must end
 * without error, answering what the second reply said.
 */
async function readPngWithClaude(baseUrl: string, workdir: string): Promise<void> {
  const run = await runClaude({
    baseUrl,
    apiKey: `${APP}:${SECRET}`,
    prompt: PROMPT,
    workdir,
    files: { 'pixel.png': PNG },
    args: CLAUDE_ARGS,
    env: CLAUDE_ENV,
    timeoutMs: 90_000,
  });
  assert.equal(run.timedOut, false, run.stderr);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(run.result?.['result'], 'It is a red square.');
}

describe('Claude Code reads a PNG through an OpenAI slot', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'openai-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'openai-key' },
  }));
  after(() => mock.close());
  let baseUrl: string;
  before(async () => {
    baseUrl = await listenForClients(gw);
  });

  it('the image reaches OpenAI as an image_url data URL, thinking as reasoning_effort high', async () => {
    const workdir = makeTempDir('claude-work');
    try {
      mock.replyNext({
        toolCalls: [
          { id: 'call_read_png', name: 'Read', arguments: { file_path: join(workdir.path, 'pixel.png') } },
        ],
      });
      mock.replyNext({ text: 'It is a red square.' });
      await readPngWithClaude(baseUrl, workdir.path);

      const chats = mock.requests.filter((request) => request.path.endsWith('/chat/completions'));
      assert.equal(chats.length, 2);
      for (const request of chats) {
        assert.doesNotMatch(request.raw.toString(), /cache_control/);
        const body = request.body as Record<string, any>;
        assert.equal(body.reasoning_effort, 'high');
        assert.match(body.prompt_cache_key, /^gw-[0-9a-f]{40}$/);
      }
      // One session, one key.
      const [first, second] = chats.map(
        (request) => request.body as { prompt_cache_key: string; messages: Record<string, any>[] },
      );
      assert.ok(first !== undefined && second !== undefined);
      assert.equal(first.prompt_cache_key, second.prompt_cache_key);
      const messages = second.messages;
      const toolIndex = messages.findIndex((message) => message.role === 'tool');
      assert.equal(messages[toolIndex]?.tool_call_id, 'call_read_png');
      const after = messages[toolIndex + 1];
      assert.equal(after?.role, 'user');
      assert.deepEqual(after?.content.at(-1), {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${PNG_BASE64}` },
      });
    } finally {
      workdir.remove();
    }
  });
});

describe('Claude Code with its defaults through an OpenAI slot', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'openai-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'openai-key' },
  }));
  after(() => mock.close());

  it('adaptive thinking reaches OpenAI as reasoning_effort medium, its system blocks as text', async () => {
    mock.replyNext({ text: 'PONG' });
    const run = await runClaude({
      baseUrl: await listenForClients(gw),
      apiKey: `${APP}:${SECRET}`,
      prompt: 'Say PONG.',
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['result'], 'PONG');
    const [request] = mock.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
    assert.ok(request !== undefined);
    assert.doesNotMatch(request.raw.toString(), /cache_control/);
    const body = request.body as { reasoning_effort?: string; messages: { role: string }[] };
    assert.equal(body.reasoning_effort, 'medium');
    assert.equal(body.messages[0]?.role, 'system');
  });
});

describe('Claude Code reads a PNG through a Gemini slot', { skip }, () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'gemini-key' },
  }));
  after(() => mock.close());
  let baseUrl: string;
  before(async () => {
    baseUrl = await listenForClients(gw);
  });

  it('the image reaches Gemini as inlineData beside the functionResponse, thinking as thinkingBudget', async () => {
    const workdir = makeTempDir('claude-work');
    try {
      mock.replyNext({
        toolCalls: [{ name: 'Read', arguments: { file_path: join(workdir.path, 'pixel.png') } }],
      });
      mock.replyNext({ text: 'It is a red square.' });
      await readPngWithClaude(baseUrl, workdir.path);

      const calls = mock.requests.filter((request) => /:(stream)?[gG]enerateContent/.test(request.path));
      assert.equal(calls.length, 2);
      for (const request of calls) {
        assert.doesNotMatch(JSON.stringify(request.body), /cache_control|cacheControl/);
        assert.deepEqual(request.body.generationConfig.thinkingConfig, { thinkingBudget: 24576 });
      }
      const contents: { role: string; parts: Record<string, any>[] }[] = calls[1]?.body.contents ?? [];
      const last = contents.at(-1);
      assert.equal(last?.role, 'user');
      assert.equal(last?.parts[0]?.functionResponse?.name, 'Read');
      assert.deepEqual(last?.parts[1], { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } });
    } finally {
      workdir.remove();
    }
  });
});
