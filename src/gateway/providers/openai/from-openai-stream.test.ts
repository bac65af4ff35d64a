import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { readOpenAIFixture } from '../../../../test/helpers/mock-openai-server.ts';
import type { ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { eventsFromCompletion, fromOpenAIStream, type StreamMessage } from './from-openai-stream.ts';

/** SSE text to messages with the same parser the HTTP client uses. */
function parse(text: string): EventSourceMessage[] {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => messages.push(event) });
  parser.feed(text);
  return messages;
}

async function* source(messages: StreamMessage[], failWith?: Error): AsyncGenerator<StreamMessage> {
  yield* messages;
  if (failWith !== undefined) throw failWith;
}

async function collect(messages: AsyncIterable<StreamMessage>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of fromOpenAIStream('provider-a', messages, 'requested')) events.push(event);
  return events;
}

async function failure(
  messages: AsyncIterable<StreamMessage>,
): Promise<{ error: ProviderError; seen: ChatStreamEvent[] }> {
  const seen: ChatStreamEvent[] = [];
  try {
    for await (const event of fromOpenAIStream('provider-a', messages, 'requested')) seen.push(event);
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return { error, seen };
  }
  assert.fail('the stream did not fail');
}

const recorded = parse(readOpenAIFixture('chat-stream.txt'));
const data = (value: unknown): StreamMessage => ({ data: JSON.stringify(value) });
const chunk = (content: string | null, finish: string | null = null, extra: object = {}) =>
  data({
    model: 'm',
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
    ...extra,
  });
const DONE: StreamMessage = { data: '[DONE]' };

describe('fromOpenAIStream', () => {
  it('maps the recorded stream: model first, deltas, finish, then usage from the include_usage chunk', async () => {
    const events = await collect(source(recorded));
    assert.deepEqual(events, [
      { type: 'model', model: 'gpt-4o-mini-2024-07-18' },
      ...['The', ' capital', ' of', ' France', ' is', ' Paris', '.'].map((content) => ({
        type: 'delta',
        content,
      })),
      { type: 'finish', reason: 'stop' },
      {
        type: 'usage',
        usage: { inputTokens: 1250, outputTokens: 8, cacheReadTokens: 1024, reasoningTokens: 0 },
      },
    ]);
  });

  it('has no usage event when the upstream sent no usage chunk', async () => {
    const withoutUsage = recorded.filter((message) => !message.data.includes('"choices":[]'));
    const events = await collect(source(withoutUsage));
    assert.equal(events.filter((event) => event.type === 'usage').length, 0);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
  });

  const tables: { name: string; messages: StreamMessage[]; expected: ChatStreamEvent[] }[] = [
    {
      name: 'a finished stream without [DONE] is complete',
      messages: [chunk('a'), chunk(null, 'length')],
      expected: [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'a' },
        { type: 'finish', reason: 'length' },
      ],
    },
    {
      name: 'events after [DONE] are ignored',
      messages: [chunk('a'), chunk(null, 'stop'), DONE, chunk('late')],
      expected: [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'a' },
        { type: 'finish', reason: 'stop' },
      ],
    },
    {
      name: 'a first chunk without a model uses the requested one until the upstream names it',
      messages: [data({ model: '', choices: [] }), chunk('a', 'stop'), DONE],
      expected: [
        { type: 'model', model: 'requested' },
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'a' },
        { type: 'finish', reason: 'stop' },
      ],
    },
    {
      name: 'cumulative usage on every chunk (vLLM) gives one usage event, the last; choices null is fine',
      messages: [
        chunk('a', null, { usage: { prompt_tokens: 5, completion_tokens: 1 } }),
        chunk(null, 'stop', { usage: { prompt_tokens: 5, completion_tokens: 2 } }),
        data({ model: 'm', choices: null, usage: { prompt_tokens: 5, completion_tokens: 3 } }),
        DONE,
      ],
      expected: [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'a' },
        { type: 'finish', reason: 'stop' },
        { type: 'usage', usage: { inputTokens: 5, outputTokens: 3 } },
      ],
    },
    {
      name: "Groq's x_groq usage",
      messages: [
        chunk('a'),
        chunk(null, 'stop', { x_groq: { usage: { prompt_tokens: 9, completion_tokens: 4 } } }),
        DONE,
      ],
      expected: [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'a' },
        { type: 'finish', reason: 'stop' },
        { type: 'usage', usage: { inputTokens: 9, outputTokens: 4 } },
      ],
    },
    {
      name: 'a streamed refusal is text, finished as content_filter; empty and null contents are skipped',
      messages: [
        data({ model: 'm', choices: [{ delta: { content: null, refusal: "I can't" } }] }),
        data({ model: 'm', choices: [{ delta: { content: '' } }] }),
        chunk(null, 'stop'),
        DONE,
      ],
      expected: [
        { type: 'model', model: 'm' },
        { type: 'delta', content: "I can't" },
        { type: 'finish', reason: 'content_filter' },
      ],
    },
  ];
  for (const { name, messages, expected } of tables) {
    it(name, async () => assert.deepEqual(await collect(source(messages)), expected));
  }

  it('fails a stream cut before its finish as a connection error', async () => {
    const { error, seen } = await failure(source([chunk('a'), chunk('b')]));
    assert.equal(error.failure, 'connection');
    assert.deepEqual(seen.at(-1), { type: 'delta', content: 'b' });
  });

  it('passes on a transport error before [DONE] and ignores one after it', async () => {
    const broken = new ProviderError({ slot: 'provider-a', failure: 'timeout' });
    const { error } = await failure(source([chunk('a')], broken));
    assert.equal(error, broken);
    const events = await collect(source([chunk('a', 'stop'), DONE], broken));
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
  });

  const errors: {
    name: string;
    body: unknown;
    status: number | undefined;
    retryable: boolean;
    detail: RegExp;
  }[] = [
    {
      name: "OpenAI's server_error",
      body: {
        error: {
          message: 'The server had an error while processing your request.',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
      status: undefined,
      retryable: true,
      detail: /error inside the stream: server_error$/,
    },
    {
      name: "OpenRouter's error with an HTTP status as code",
      body: {
        id: 'gen-1',
        model: 'm',
        error: { code: 502, message: 'Provider returned error' },
        choices: [{ delta: { content: '' }, finish_reason: 'error' }],
      },
      status: 502,
      retryable: true,
      detail: /HTTP 502\): error inside the stream$/,
    },
    {
      name: 'a quota error',
      body: {
        error: {
          message: 'You exceeded your current quota',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      },
      status: undefined,
      retryable: false,
      detail: /insufficient_quota$/,
    },
    {
      name: 'a rejected request',
      body: {
        error: {
          message: 'context length exceeded',
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
      status: undefined,
      retryable: false,
      detail: /context_length_exceeded \(invalid_request_error\)$/,
    },
  ];
  for (const { name, body, status, retryable, detail } of errors) {
    it(`raises ${name} inside the stream as a ProviderError without its message`, async () => {
      const { error, seen } = await failure(source([chunk('partial'), data(body), DONE]));
      assert.equal(error.failure, 'http');
      assert.equal(error.status, status);
      assert.equal(error.retryable, retryable);
      assert.match(error.message, detail);
      assert.doesNotMatch(error.message, /server had|Provider returned|exceeded your|context length/);
      assert.deepEqual(seen, [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'partial' },
      ]);
    });
  }

  it('rejects a chunk that is not JSON, or whose choices are not a list, as invalid_response', async () => {
    for (const bad of [{ data: '{"choices": [' }, { data: '42' }, data({ model: 'm', choices: 'none' })]) {
      const { error } = await failure(source([bad, DONE]));
      assert.equal(error.failure, 'invalid_response');
    }
  });

  it('releases its source when the consumer stops early', async () => {
    let released = false;
    const tracked: AsyncIterable<StreamMessage> = {
      [Symbol.asyncIterator]() {
        const inner = source([chunk('a'), chunk('b'), chunk('c', 'stop'), DONE]);
        return {
          next: () => inner.next(),
          return: async () => {
            released = true;
            return inner.return(undefined);
          },
        };
      },
    };
    for await (const event of fromOpenAIStream('provider-a', tracked, 'm')) {
      if (event.type === 'delta') break;
    }
    assert.equal(released, true);
  });
});

describe('eventsFromCompletion', () => {
  it('turns a whole completion into the same event sequence', () => {
    assert.deepEqual(
      eventsFromCompletion({
        model: 'm',
        content: 'hi',
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
      [
        { type: 'model', model: 'm' },
        { type: 'delta', content: 'hi' },
        { type: 'finish', reason: 'stop' },
        { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    );
  });
});
