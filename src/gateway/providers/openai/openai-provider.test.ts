import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MockAgent } from 'undici';
import { callContext } from '../../../../test/helpers/call-context.ts';
import {
  type MockOpenAIServer,
  openAIErrorFixture,
  openAIFixtureJson,
  readOpenAIFixture,
  startMockOpenAI,
} from '../../../../test/helpers/mock-openai-server.ts';
import { openAISettings } from '../../../../test/helpers/openai-settings.ts';
import type { ChatCall, ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { OpenAIProvider } from './openai-provider.ts';

const call: ChatCall = {
  model: 'gpt-4o-mini',
  temperature: 0.3,
  maxTokens: 50,
  messages: [
    { role: 'system', content: 'Answer in one sentence.' },
    { role: 'user', content: 'Capital of France?', name: 'alice' },
    { role: 'tool', content: '{"country":"France"}', name: 'lookup' },
  ],
};

const expectedMessages = [
  { role: 'system', content: 'Answer in one sentence.' },
  { role: 'user', content: 'Capital of France?', name: 'alice' },
  { role: 'user', content: 'Tool result (lookup): {"country":"France"}' },
];

const expectedUsage = { inputTokens: 1250, outputTokens: 8, cacheReadTokens: 1024, reasoningTokens: 0 };

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Recorded body texts that must never appear in an error. */
const RAW = /Incorrect API key|sk-proj|Rate limit reached|exceeded your current quota|Sorry about that/;

describe('OpenAIProvider against a mock OpenAI server', () => {
  let mock: MockOpenAIServer;
  let provider: OpenAIProvider;
  before(async () => {
    mock = await startMockOpenAI();
    provider = new OpenAIProvider(openAISettings(mock.baseUrl, 'sk-test-key'));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  afterEach(() => {
    mock.reset();
    mock.configure({ streamChunks: undefined, chunkDelayMs: 0 });
  });

  it('chat: posts a Chat Completions body with the bearer key and maps the answer', async () => {
    const result = await provider.chat(
      { ...call, jsonSchema: { name: 'answer', schema: { type: 'object' } } },
      callContext(),
    );
    assert.deepEqual(result, {
      model: 'gpt-4o-mini-2024-07-18',
      content: 'The capital of France is Paris.',
      finishReason: 'stop',
      usage: expectedUsage,
    });
    const [request] = mock.requests;
    assert.equal(mock.requests.length, 1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/v1/chat/completions');
    assert.equal(request?.headers.authorization, 'Bearer sk-test-key');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.deepEqual(request?.body, {
      model: 'gpt-4o-mini',
      messages: expectedMessages,
      temperature: 0.3,
      // A local base URL gets the field every compatible server knows.
      max_tokens: 50,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: false },
      },
    });
  });

  it('sends no Authorization header when the slot has no key (local servers)', async () => {
    const keyless = new OpenAIProvider(openAISettings(mock.baseUrl));
    try {
      await keyless.chat(call, callContext());
      assert.equal(mock.requests[0]?.headers.authorization, undefined);
    } finally {
      await keyless.close();
    }
  });

  it('streamChat: asks for usage, yields model first, deltas, finish and usage, and drains the response', async () => {
    const events = await drain(provider.streamChat(call, callContext()));
    assert.deepEqual(events[0], { type: 'model', model: 'gpt-4o-mini-2024-07-18' });
    const text = events.flatMap((event) => (event.type === 'delta' ? [event.content] : [])).join('');
    assert.equal(text, 'The capital of France is Paris.');
    assert.deepEqual(events.slice(-2), [
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: expectedUsage },
    ]);
    const request = mock.requests[0];
    assert.equal(request?.headers.accept, 'text/event-stream');
    assert.deepEqual(request?.body, {
      model: 'gpt-4o-mini',
      messages: expectedMessages,
      temperature: 0.3,
      max_tokens: 50,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(await request?.ended, 'finished');
  });

  it('streamChat: passes every chunk of a long stream', async () => {
    mock.configure({ streamChunks: 200 });
    const events = await drain(provider.streamChat(call, callContext()));
    assert.equal(events.filter((event) => event.type === 'delta').length, 200);
    assert.deepEqual(events.at(-1), { type: 'usage', usage: { inputTokens: 12, outputTokens: 400 } });
  });

  it('streamChat: reads a server that answered a stream request with plain JSON', async () => {
    mock.failNext(1, { status: 200, body: openAIFixtureJson('chat-completion.json') });
    const events = await drain(provider.streamChat(call, callContext()));
    assert.deepEqual(events, [
      { type: 'model', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'delta', content: 'The capital of France is Paris.' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: expectedUsage },
    ]);
  });

  it('embed: asks for base64 and decodes it to the recorded float vectors', async () => {
    const inputs = ['The food was delicious', 'and the waiter...', 'third'];
    const result = await provider.embed({ model: 'text-embedding-3-small', inputs }, callContext());
    const floats = (openAIFixtureJson('embeddings-float.json') as { data: { embedding: number[] }[] }).data;
    assert.deepEqual(result, {
      model: 'text-embedding-3-small',
      // The mock cycles its two recorded vectors over the inputs; base64 stays float32.
      vectors: [floats[0], floats[1], floats[0]].map((item) => Float32Array.from(item?.embedding ?? [])),
      usage: { inputTokens: 6 + 5 + 2 },
    });
    assert.equal(mock.requests[0]?.path, '/v1/embeddings');
    assert.deepEqual(mock.requests[0]?.body, {
      model: 'text-embedding-3-small',
      input: inputs,
      encoding_format: 'base64',
    });
  });

  const errorCases = [
    {
      fixture: 'error-401-invalid-api-key.json',
      status: 401,
      retryable: false,
      retryAfterMs: undefined,
      code: 'invalid_api_key',
    },
    {
      fixture: 'error-429-rate-limit.json',
      status: 429,
      retryable: true,
      retryAfterMs: 1250,
      code: 'rate_limit_exceeded',
    },
    {
      fixture: 'error-429-insufficient-quota.json',
      status: 429,
      retryable: false,
      retryAfterMs: undefined,
      code: 'insufficient_quota',
    },
    {
      fixture: 'error-500-server-error.json',
      status: 500,
      retryable: true,
      retryAfterMs: undefined,
      code: 'server_error',
    },
  ];
  const operations = {
    chat: () => provider.chat(call, callContext()),
    stream: () => drain(provider.streamChat(call, callContext())),
    embed: () => provider.embed({ model: 'e', inputs: ['x'] }, callContext()),
  };
  for (const { fixture, status, retryable, retryAfterMs, code } of errorCases) {
    for (const [operation, run] of Object.entries(operations)) {
      it(`${operation}: maps ${fixture} without its message text`, async () => {
        mock.failNext(1, openAIErrorFixture(fixture));
        await assert.rejects(run(), (error: unknown) => {
          assert.ok(error instanceof ProviderError);
          assert.equal(error.failure, 'http');
          assert.equal(error.status, status);
          assert.equal(error.retryable, retryable);
          assert.equal(error.retryAfterMs, retryAfterMs);
          assert.match(error.message, new RegExp(`HTTP ${status} ${code}`));
          assert.doesNotMatch(error.message, RAW);
          assert.doesNotMatch(error.message, /sk-test-key/);
          return true;
        });
      });
    }
  }

  it('chat: a 2xx body that is not JSON, or not a completion, is an invalid response', async () => {
    mock.failNext(1, { status: 200, body: '<html>gateway</html>' });
    await assert.rejects(
      provider.chat(call, callContext()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
    mock.failNext(1, { status: 200, body: { object: 'list', data: [] } });
    await assert.rejects(
      provider.chat(call, callContext()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
  });

  it('streamChat: aborting mid-stream stops the stream and closes the upstream connection', async () => {
    mock.configure({ streamChunks: 100, chunkDelayMs: 20 });
    const controller = new AbortController();
    const seen: ChatStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of provider.streamChat(call, callContext(controller.signal))) {
          seen.push(event);
          if (event.type === 'delta') controller.abort();
        }
      })(),
      (error: unknown) => error instanceof ProviderError && error.failure === 'aborted' && !error.retryable,
    );
    assert.ok(seen.length < 10, `the stream went on after the abort (${seen.length} events)`);
    assert.equal(await mock.requests[0]?.ended, 'closed');
  });

  it('streamChat: a consumer that stops reading early releases the connection', async () => {
    mock.configure({ streamChunks: 100, chunkDelayMs: 20 });
    for await (const event of provider.streamChat(call, callContext())) {
      if (event.type === 'delta') break;
    }
    assert.equal(await mock.requests[0]?.ended, 'closed');
  });

  it('chat: a signal aborted before the call is an abort, not an upstream failure', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      provider.chat(call, callContext(controller.signal)),
      (e: ProviderError) => e.failure === 'aborted',
    );
  });
});

describe('OpenAIProvider against api.openai.com (undici MockAgent, no network)', () => {
  it('sends max_completion_tokens to OpenAI itself and closes its connection pool', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let sent: unknown;
    agent
      .get('https://api.openai.com')
      .intercept({ path: '/v1/chat/completions', method: 'POST' })
      .reply(
        200,
        (options) => {
          sent = JSON.parse(String(options.body));
          return readOpenAIFixture('chat-completion.json');
        },
        { headers: { 'content-type': 'application/json' } },
      );
    const provider = new OpenAIProvider(openAISettings('https://api.openai.com/v1', 'sk-x'), {
      dispatcher: agent,
    });
    const result = await provider.chat(
      { model: 'o4-mini', maxTokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      callContext(),
    );
    assert.equal(result.content, 'The capital of France is Paris.');
    assert.deepEqual(sent, {
      model: 'o4-mini',
      max_completion_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await provider.close();
    await assert.rejects(
      provider.chat(call, callContext()),
      (e: ProviderError) => e.failure === 'connection',
    );
  });
});
