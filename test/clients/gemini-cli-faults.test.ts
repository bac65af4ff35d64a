import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { clientPackageVersion, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runGemini } from '../helpers/run-gemini.ts';

/**
 * Errors reaching the real Gemini CLI in Google's shape (CONTRACT 6.1, 6.3): an upstream's rate
 * limit that outlasted the gateway's retries is a 429 RESOURCE_EXHAUSTED with RetryInfo, which the
 * CLI backs off on and asks again; a prompt past the window is Google's 400 INVALID_ARGUMENT
 * sentence, which the CLI reports and stops on. On an OpenAI slot (the vendor's words translated)
 * and on a simulated slot, whose faults the prompt asks for (the CLI sends no metadata).
 */

const skip = skipUnlessInstalled('gemini');
const KEY = `${APP}:${SECRET}`;
const VERSION = clientPackageVersion('@google/gemini-cli') ?? '';

const RATE_LIMITED = {
  status: 429,
  headers: { 'retry-after': '1' },
  body: {
    error: {
      message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM). Please try again in 1s.',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
};

const OVERFLOW = {
  status: 400,
  body: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
};

/**
 * The error object the CLI's `--output-format json` reports (after its own log lines, which hold
 * braces too), its message the body the gateway answered.
 */
function reportedError(run: Awaited<ReturnType<typeof runGemini>>): { code: number; body: any } {
  const output = `${run.stdout}\n${run.stderr}`;
  const start = output.lastIndexOf('{\n  "session_id"');
  assert.ok(start !== -1, output);
  const end = output.indexOf('\n}', start);
  const error = JSON.parse(output.slice(start, end + 2)).error;
  return { code: error.code, body: JSON.parse(error.message) };
}

describe(`Gemini CLI ${VERSION}: errors in Google's shape, on an openai slot`, { skip }, () => {
  let mock: MockOpenAIServer;
  let proxy: RecordingProxy;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'upstream-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'upstream-key' },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
    proxy.requests.length = 0;
  });

  it("an upstream's rate limit past the gateway's retries: the CLI gets RESOURCE_EXHAUSTED, backs off, asks again and answers", async () => {
    // Every attempt of the CLI's first request is refused; its second request is answered.
    const attempts = 3;
    mock.failNext(attempts, RATE_LIMITED);
    mock.replyNext({ text: 'Answered after the wait.' });
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: 'Say hi.',
      model: 'provider-a/gpt-4o-mini',
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['response'], 'Answered after the wait.');
    assert.equal(proxy.requests.length, 2, 'the CLI asked again after the 429');
    assert.equal(mock.requests.length, attempts + 1);
    // The CLI read the 429 as Google's quota error: its retry log names the gateway's message.
    assert.match(run.stderr, /Attempt 1 failed: provider-a failed \(HTTP 429\)/);
  });

  it("a prompt past the model's window: the CLI stops with Google's 400 INVALID_ARGUMENT sentence", async () => {
    mock.failNext(1, OVERFLOW);
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: 'Say hi.',
      model: 'provider-a/gpt-4o-mini',
    });
    assert.notEqual(run.code, 0);
    const { code, body } = reportedError(run);
    assert.equal(code, 400);
    assert.deepEqual(body, {
      error: {
        code: 400,
        message: 'The input token count (130512) exceeds the maximum number of tokens allowed (128000).',
        status: 'INVALID_ARGUMENT',
      },
    });
    assert.equal(proxy.requests.length, 1, 'an overflow is not asked again');
  });
});

describe(`Gemini CLI ${VERSION}: errors in Google's shape, on a simulated slot`, { skip }, () => {
  const gw = shareGateway();
  let proxy: RecordingProxy;
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(() => proxy.close());

  it("the prompt asks for an overflow: the CLI stops with INVALID_ARGUMENT in Google's words", async () => {
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: 'Say hi. <simulated>{"fault": "context_overflow"}</simulated>',
      model: 'provider-a/chat',
    });
    assert.notEqual(run.code, 0);
    const { code, body } = reportedError(run);
    assert.equal(code, 400);
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, /^The input token count .*exceeds the maximum number of tokens allowed/);
  });
});
