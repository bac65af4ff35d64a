import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { runCodex } from '../helpers/run-codex.ts';

/**
 * The real Codex CLI (0.171, `codex exec`) through the Responses door when its upstream refuses the
 * prompt as too long for the context window (CONTRACT 6.1): the door answers OpenAI's 400
 * `context_length_exceeded`, which Codex knows as its own context-window error, and it says so
 * instead of printing the error body as an unexpected failure (what it did with the `invalid_request`
 * code before); and when the upstream's rate limit outlasts the gateway's retries, the door's 429
 * `rate_limit_exceeded` makes Codex reconnect after the wait it names.
 */
const skip = skipUnlessInstalled('codex');

const OVERFLOW = {
  status: 400,
  body: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
};

const RATE_LIMIT = {
  status: 429,
  headers: { 'retry-after-ms': '1200' },
  body: {
    error: {
      message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM). Please try again in 1.2s.',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
};

describe('Codex CLI fed a context overflow through the gateway', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI();
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'sk-upstream' },
  }));
  after(() => mock.close());

  it('reports the overflow as its own context-window error', async (t) => {
    mock.failNext(5, OVERFLOW);
    const origin = await listenForClients(gw);
    const run = await runCodex({
      baseUrl: `${origin}/v1`,
      apiKey: `${APP}:${SECRET}`,
      model: 'gpt-4o-mini',
      prompt: 'Say PONG.',
      requestMaxRetries: 0,
      streamMaxRetries: 0,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    t.diagnostic(`exit ${run.code}; upstream calls ${mock.requests.length}`);
    for (const line of said.split('\n').slice(-30)) t.diagnostic(line);
    assert.notEqual(run.code, 0);
    const failed = run.events.find((event) => event['type'] === 'turn.failed');
    assert.match(String(failed?.['error']?.['message']), /context window/, said);
    assert.equal(mock.requests.length, 1, 'no retry of a prompt that will not fit');
  });

  it('waits out a rate limit that outlasted the retries and sends again', async (t) => {
    mock.reset();
    // The gateway's three calls (its default retries) all meet the limit; Codex's next request does not.
    mock.failNext(3, RATE_LIMIT);
    mock.replyNext({ text: 'PONG' });
    const origin = await listenForClients(gw);
    const run = await runCodex({
      baseUrl: `${origin}/v1`,
      apiKey: `${APP}:${SECRET}`,
      model: 'gpt-4o-mini',
      prompt: 'Say PONG.',
      requestMaxRetries: 2,
      streamMaxRetries: 2,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    const times = mock.requests.map((request) => request.receivedAt);
    t.diagnostic(
      `exit ${run.code}; upstream calls ${times.length}; pause before Codex's retry ${(times[3] ?? 0) - (times[2] ?? 0)} ms`,
    );
    for (const line of said.split('\n').slice(-12)) t.diagnostic(line);
    assert.equal(run.code, 0, said);
    assert.equal(run.lastMessage, 'PONG');
    assert.equal(times.length, 4);
    // Codex does not retry an HTTP 429 as a request (its request retries skip 429s): it reconnects
    // the turn after the wait the answer named (a 502 before 6.1 was retried after its own 0.4 s).
    assert.ok((times[3] ?? 0) - (times[2] ?? 0) >= 1_200, 'Codex waited what it was told');
  });
});
