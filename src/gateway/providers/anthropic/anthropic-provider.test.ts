import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { anthropicSettings } from '../../../../test/helpers/anthropic-settings.ts';
import { callContext } from '../../../../test/helpers/call-context.ts';
import {
  errorFixture,
  type MockAnthropicServer,
  startMockAnthropic,
} from '../../../../test/helpers/mock-anthropic-server.ts';
import type { SettingsOfKind } from '../../../config/config-types.ts';
import type { ChatCall, ChatStreamEvent } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { AnthropicProvider } from './anthropic-provider.ts';

const KEY = 'sk-ant-api03-test-key-never-shown';

const settings = (origin: string, extra: Partial<SettingsOfKind<'anthropic'>> = {}) =>
  anthropicSettings(origin, KEY, extra);

const conversation: ChatCall = {
  model: 'claude-sonnet-4-5',
  temperature: 1.5,
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Capital of France?' },
    { role: 'user', content: 'One line.' },
    { role: 'assistant', content: 'Paris.' },
    { role: 'system', content: 'No emoji.' },
    { role: 'tool', name: 'lookup', content: 'ok' },
  ],
};

const jsonCall: ChatCall = {
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: 'Facts about Paris' }],
  jsonSchema: {
    name: 'city facts',
    schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('AnthropicProvider against a mock Messages API', () => {
  let mock: MockAnthropicServer;
  let provider: AnthropicProvider;
  before(async () => {
    mock = await startMockAnthropic();
    // A trailing slash on the origin must not double the path's slash.
    provider = new AnthropicProvider(settings(`${mock.origin}/`));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  beforeEach(() => {
    mock.requests.length = 0;
  });

  it('sends a Messages request and maps the answer, cache tokens included in input', async () => {
    const result = await provider.chat(conversation, callContext());
    assert.equal(mock.requests.length, 1);
    const request = mock.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1/messages');
    assert.equal(request.headers['x-api-key'], KEY);
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['authorization'], undefined);
    assert.deepEqual(request.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 777,
      system: 'You are terse.\n\nNo emoji.',
      temperature: 1,
      messages: [
        { role: 'user', content: 'Capital of France?\n\nOne line.' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'Tool result (lookup):\nok' },
      ],
    });
    assert.deepEqual(result, {
      model: 'claude-sonnet-4-5-20250929',
      content: 'Paris is the capital of France.',
      finishReason: 'stop',
      usage: { inputTokens: 3093, outputTokens: 12, cacheReadTokens: 2048, cacheWriteTokens: 1024 },
    });
  });

  it('asks for structured output with a forced tool and answers with its input', async () => {
    const result = await provider.chat({ ...jsonCall, maxTokens: 300 }, callContext());
    const body = mock.requests[0]!.body;
    assert.equal(body.max_tokens, 300);
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'city_facts' });
    assert.deepEqual(body.tools[0].input_schema, jsonCall.jsonSchema?.schema);
    assert.deepEqual(JSON.parse(result.content), { city: 'Paris', country: 'France', population: 2102650 });
    assert.equal(result.finishReason, 'stop');
  });

  it('unwraps a non-object schema answer', async () => {
    const message = {
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'tool_use', id: 'toolu_x', name: 'numbers', input: { value: [3, 1, 2] } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    mock.failNext(1, { status: 200, body: message });
    const result = await provider.chat(
      { ...jsonCall, jsonSchema: { name: 'numbers', schema: { type: 'array', items: { type: 'number' } } } },
      callContext(),
    );
    assert.equal(mock.requests[0]!.body.tools[0].input_schema.properties.value.type, 'array');
    assert.equal(result.content, '[3,1,2]');
  });

  it('streams: model first, deltas, finish, usage; the request says stream: true', async () => {
    const events = await collect(provider.streamChat(conversation, callContext()));
    const request = mock.requests[0]!;
    assert.equal(request.body.stream, true);
    assert.equal(request.headers['accept'], 'text/event-stream');
    assert.deepEqual(events.at(0), {
      type: 'model',
      model: 'claude-sonnet-4-5-20250929',
      promptUsage: { inputTokens: 3093, outputTokens: 0, cacheReadTokens: 2048, cacheWriteTokens: 1024 },
    });
    assert.equal(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.content)
        .join(''),
      'Paris is the capital of France.',
    );
    assert.deepEqual(events.slice(-2), [
      { type: 'finish', reason: 'stop' },
      {
        type: 'usage',
        usage: { inputTokens: 3093, outputTokens: 12, cacheReadTokens: 2048, cacheWriteTokens: 1024 },
      },
    ]);
  });

  it('streams structured output as JSON fragments', async () => {
    const events = await collect(provider.streamChat(jsonCall, callContext()));
    const json = events
      .filter((e) => e.type === 'delta')
      .map((e) => e.content)
      .join('');
    assert.deepEqual(JSON.parse(json), { city: 'Paris', country: 'France', population: 2102650 });
  });

  const errors: { fixture: string; retryable: boolean; retryAfterMs?: number }[] = [
    { fixture: 'error-401.json', retryable: false },
    { fixture: 'error-400.json', retryable: false },
    { fixture: 'error-429.json', retryable: true, retryAfterMs: 17_000 },
    { fixture: 'error-429-spend-limit.json', retryable: false },
    { fixture: 'error-529.json', retryable: true },
  ];
  for (const row of errors) {
    it(`maps ${row.fixture} for chat and for a stream before its first event`, async () => {
      const fixture = errorFixture(row.fixture);
      const upstreamText = (fixture.body as { error: { message: string } }).error.message;
      const check = (e: ProviderError) => {
        assert.equal(e.failure, 'http');
        assert.equal(e.status, fixture.status);
        assert.equal(e.retryable, row.retryable);
        assert.equal(e.retryAfterMs, row.retryAfterMs);
        assert.ok(!e.message.includes(upstreamText), 'no upstream message text');
        assert.ok(!e.message.includes(KEY), 'no key');
        return true;
      };
      mock.failNext(2, fixture);
      await assert.rejects(provider.chat(conversation, callContext()), check);
      await assert.rejects(
        provider.streamChat(conversation, callContext())[Symbol.asyncIterator]().next(),
        check,
      );
    });
  }

  it('a 200 that is not a Message, or not JSON, is an invalid response', async () => {
    mock.failNext(1, { status: 200, body: { type: 'message', content: 'nope' } });
    await assert.rejects(
      provider.chat(conversation, callContext()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
    mock.failNext(1, { status: 200, body: '<html>gateway</html>' });
    await assert.rejects(
      provider.chat(conversation, callContext()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
  });

  it('an aborted stream rejects as aborted and closes the upstream connection', async () => {
    mock.stallNextStream(3);
    const controller = new AbortController();
    const iterator = provider
      .streamChat(conversation, callContext(controller.signal))
      [Symbol.asyncIterator]();
    assert.deepEqual((await iterator.next()).value, {
      type: 'model',
      model: 'claude-sonnet-4-5-20250929',
      promptUsage: { inputTokens: 3093, outputTokens: 0, cacheReadTokens: 2048, cacheWriteTokens: 1024 },
    });
    const abandoned = mock.nextAbandon();
    const pending = iterator.next();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, (e: ProviderError) => e.failure === 'aborted' && !e.retryable);
    await abandoned;
    assert.equal(mock.abandonedStreams, 1);
  });

  it('an upstream that stops answering mid-stream times out instead of hanging', async () => {
    const quick = new AnthropicProvider(
      settings(mock.origin, { timeouts: { connectMs: 1_000, firstByteMs: 150, totalMs: 5_000 } }),
    );
    mock.stallNextStream(2);
    await assert.rejects(collect(quick.streamChat(conversation, callContext())), (e: ProviderError) => {
      return e.failure === 'timeout' && e.retryable;
    });
    await quick.close();
  });

  it('without a key it sends no x-api-key and maps the 401', async () => {
    // The loader refuses an Anthropic slot without a key; the adapter must stay safe all the same.
    const keyless = new AnthropicProvider({
      ...settings(mock.origin),
      apiKey: undefined as unknown as string,
    });
    await assert.rejects(
      keyless.chat(conversation, callContext()),
      (e: ProviderError) => e.status === 401 && !e.retryable,
    );
    assert.equal(mock.requests[0]!.headers['x-api-key'], undefined);
    await keyless.close();
  });

  it('embed() is refused without a call upstream', async () => {
    await assert.rejects(
      provider.embed(),
      (e: ProviderError) => e.retryable === false && e.message.includes('no embeddings API'),
    );
    assert.equal(mock.requests.length, 0);
  });
});
