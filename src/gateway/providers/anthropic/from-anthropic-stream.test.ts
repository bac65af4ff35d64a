import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureText, sseMessages } from '../../../../test/helpers/mock-anthropic-server.ts';
import type { ChatStreamEvent } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import type { ResponseContext } from './from-anthropic-response.ts';
import { fromAnthropicStream, MAX_THINKING_CHARS, type SseMessage } from './from-anthropic-stream.ts';

const plain: ResponseContext = {
  slot: 'provider-c',
  requestedModel: 'claude-sonnet-4-5',
  jsonTool: undefined,
};
const forced: ResponseContext = { ...plain, jsonTool: { name: 'city_facts', wrapped: false } };

async function* feed(messages: SseMessage[]): AsyncIterable<SseMessage> {
  yield* messages;
}

async function collect(messages: SseMessage[], context: ResponseContext): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of fromAnthropicStream(feed(messages), context)) events.push(event);
  return events;
}

/** The fixture's events with one data payload edited (found by a substring). */
function edited(name: string, find: string, edit: (data: any) => unknown): SseMessage[] {
  return sseMessages(fixtureText(name)).map((message) =>
    message.data.includes(find)
      ? { ...message, data: JSON.stringify(edit(JSON.parse(message.data))) }
      : message,
  );
}

describe('fromAnthropicStream', () => {
  it('yields model first, the text deltas, then finish and usage (cache tokens in input)', async () => {
    const events = await collect(sseMessages(fixtureText('message-stream.txt')), plain);
    assert.deepEqual(events, [
      {
        type: 'model',
        model: 'claude-sonnet-4-5-20250929',
        // message_start's counts: the prompt's side, known before the answer.
        promptUsage: {
          inputTokens: 21 + 2048 + 1024,
          outputTokens: 0,
          cacheReadTokens: 2048,
          cacheWriteTokens: 1024,
        },
      },
      { type: 'delta', content: 'Paris is' },
      { type: 'delta', content: ' the capital' },
      { type: 'delta', content: ' of France.' },
      { type: 'finish', reason: 'stop' },
      {
        type: 'usage',
        usage: {
          inputTokens: 21 + 2048 + 1024,
          outputTokens: 12,
          cacheReadTokens: 2048,
          cacheWriteTokens: 1024,
        },
      },
    ]);
  });

  it('streams the forced tool input_json_delta fragments, which concatenate to the JSON answer', async () => {
    const events = await collect(sseMessages(fixtureText('tool-stream.txt')), forced);
    const deltas = events.filter((e) => e.type === 'delta').map((e) => e.content);
    assert.equal(deltas.length, 3, 'the empty first fragment is skipped');
    assert.deepEqual(JSON.parse(deltas.join('')), { city: 'Paris', country: 'France', population: 2102650 });
    assert.deepEqual(events.at(0), {
      type: 'model',
      model: 'claude-sonnet-4-5-20250929',
      promptUsage: { inputTokens: 412, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    assert.deepEqual(events.slice(-2), [
      { type: 'finish', reason: 'stop' },
      // message_delta carried only output_tokens: input and cache counts stay from message_start.
      {
        type: 'usage',
        usage: { inputTokens: 412, outputTokens: 58, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });

  it('holds a wrapped schema answer until its block ends, then sends the unwrapped value', async () => {
    const messages = sseMessages(fixtureText('tool-stream.txt'))
      .filter((m) => !m.data.includes('input_json_delta'))
      .flatMap((m) =>
        m.data.includes('content_block_stop')
          ? [
              ...['{"val', 'ue": [1, ', '2]}'].map((partial_json) => ({
                event: 'content_block_delta',
                data: JSON.stringify({
                  type: 'content_block_delta',
                  index: 0,
                  delta: { type: 'input_json_delta', partial_json },
                }),
              })),
              m,
            ]
          : [m],
      );
    const events = await collect(messages, { ...forced, jsonTool: { name: 'city_facts', wrapped: true } });
    assert.deepEqual(
      events.filter((e) => e.type === 'delta'),
      [{ type: 'delta', content: '[1,2]' }],
    );
  });

  it('in JSON mode, text outside the tool is sent only when no tool call came', async () => {
    const text = sseMessages(fixtureText('message-stream.txt'));
    const events = await collect(text, forced);
    assert.deepEqual(
      events.filter((e) => e.type === 'delta'),
      [{ type: 'delta', content: 'Paris is the capital of France.' }],
    );
    const otherTool = edited('tool-stream.txt', 'content_block_start', (data) => {
      data.content_block.name = 'not_ours';
      return data;
    });
    assert.deepEqual(
      (await collect(otherTool, forced)).filter((e) => e.type === 'delta'),
      [],
    );
  });

  it('sends each thinking block whole, with its signature, once the block ends', async () => {
    const messages = sseMessages(fixtureText('message-stream.txt'));
    const block = (data: Record<string, unknown>): SseMessage => ({
      event: String(data['type']),
      data: JSON.stringify(data),
    });
    messages.splice(
      1,
      0,
      block({
        type: 'content_block_start',
        index: 7,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
      block({
        type: 'content_block_delta',
        index: 7,
        delta: { type: 'thinking_delta', thinking: 'Paris, ' },
      }),
      block({
        type: 'content_block_delta',
        index: 7,
        delta: { type: 'thinking_delta', thinking: 'surely.' },
      }),
      block({
        type: 'content_block_delta',
        index: 7,
        delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM+sig==' },
      }),
      block({ type: 'content_block_stop', index: 7 }),
      block({
        type: 'content_block_start',
        index: 8,
        content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p' },
      }),
      block({ type: 'content_block_stop', index: 8 }),
    );
    const events = await collect(messages, plain);
    const thinking = events.filter((e) => e.type === 'thinking');
    assert.deepEqual(thinking, [
      {
        type: 'thinking',
        part: {
          type: 'thinking',
          vendor: 'anthropic',
          text: 'Paris, surely.',
          signature: 'EqQBCgIYAhIM+sig==',
        },
      },
      {
        type: 'thinking',
        part: { type: 'thinking', vendor: 'anthropic', text: '', redacted: 'EmwKAhgBEgy3va3p' },
      },
    ]);
    // Before the text it led to, which is unchanged.
    assert.ok(events.findIndex((e) => e.type === 'thinking') < events.findIndex((e) => e.type === 'delta'));
    const deltas = events.filter((e) => e.type === 'delta');
    assert.equal(deltas.map((e) => e.content).join(''), 'Paris is the capital of France.');
  });

  it('refuses thinking longer than the bound as an invalid response', async () => {
    const messages = sseMessages(fixtureText('message-stream.txt'));
    const huge = 'x'.repeat(MAX_THINKING_CHARS + 1);
    messages.splice(
      1,
      0,
      {
        event: 'content_block_start',
        data: '{"type":"content_block_start","index":7,"content_block":{"type":"thinking","thinking":""}}',
      },
      {
        event: 'content_block_delta',
        data: JSON.stringify({
          type: 'content_block_delta',
          index: 7,
          delta: { type: 'thinking_delta', thinking: huge },
        }),
      },
    );
    await assert.rejects(collect(messages, plain), (error: ProviderError) => {
      assert.equal(error.failure, 'invalid_response');
      return true;
    });
  });

  it('ignores pings, unsigned thinking and event types it does not know', async () => {
    const messages = sseMessages(fixtureText('message-stream.txt'));
    messages.splice(
      1,
      0,
      {
        event: 'content_block_start',
        data: '{"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":""}}',
      },
      {
        event: 'content_block_delta',
        data: '{"type":"content_block_delta","index":5,"delta":{"type":"thinking_delta","thinking":"hmm"}}',
      },
      { event: 'ping', data: '{"type": "ping"}' },
      { event: 'brand_new_event', data: '{"type":"brand_new_event"}' },
    );
    const deltas = (await collect(messages, plain)).filter((e) => e.type === 'delta');
    assert.equal(deltas.map((e) => e.content).join(''), 'Paris is the capital of France.');
  });

  it('reads the stop sequence that ended the answer from message_delta', async () => {
    const messages = edited('message-stream.txt', 'message_delta', (data) => ({
      ...data,
      delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
    }));
    const events = await collect(messages, plain);
    assert.deepEqual(events.at(-2), { type: 'finish', reason: 'stop', stopSequence: '###' });
  });

  it('maps max_tokens to length and reads thinking tokens from message_delta', async () => {
    const messages = edited('message-stream.txt', 'message_delta', (data) => ({
      ...data,
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { output_tokens: 40, output_tokens_details: { thinking_tokens: 30 } },
    }));
    const events = await collect(messages, plain);
    assert.deepEqual(events.at(-2), { type: 'finish', reason: 'length' });
    assert.deepEqual(events.at(-1), {
      type: 'usage',
      usage: {
        inputTokens: 3093,
        outputTokens: 40,
        cacheReadTokens: 2048,
        cacheWriteTokens: 1024,
        reasoningTokens: 30,
      },
    });
  });

  it('an overloaded error event mid-stream is a retryable 529, after the deltas already sent', async () => {
    const seen: ChatStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of fromAnthropicStream(
          feed(sseMessages(fixtureText('stream-overloaded.txt'))),
          plain,
        )) {
          seen.push(event);
        }
      })(),
      (e: ProviderError) =>
        e.failure === 'http' && e.status === 529 && e.retryable && !e.message.includes('Overloaded'),
    );
    assert.deepEqual(
      seen.map((e) => e.type),
      ['model', 'delta'],
    );
  });

  it('other error events take their type status; an unreadable one counts as a server error', async () => {
    const start = sseMessages(fixtureText('message-stream.txt')).slice(0, 1);
    const errorEvent = (data: string) => [...start, { event: 'error', data }];
    await assert.rejects(
      collect(
        errorEvent('{"type":"error","error":{"type":"invalid_request_error","message":"secret text"}}'),
        plain,
      ),
      (e: ProviderError) => e.status === 400 && !e.retryable && !e.message.includes('secret'),
    );
    await assert.rejects(
      collect(errorEvent('{"type":"error","error":{"type":"rate_limit_error","message":"x"}}'), plain),
      (e: ProviderError) => e.status === 429 && e.retryable,
    );
    await assert.rejects(
      collect(errorEvent('not json at all'), plain),
      (e: ProviderError) => e.status === 500 && e.retryable,
    );
  });

  it('a stream cut before message_stop is a connection failure; one without message_start is invalid', async () => {
    const cut = sseMessages(fixtureText('message-stream.txt')).slice(0, 5);
    await assert.rejects(
      collect(cut, plain),
      (e: ProviderError) => e.failure === 'connection' && e.retryable,
    );
    await assert.rejects(collect([], plain), (e: ProviderError) => e.failure === 'invalid_response');
    const headless = sseMessages(fixtureText('message-stream.txt')).slice(1);
    await assert.rejects(collect(headless, plain), (e: ProviderError) => e.failure === 'invalid_response');
  });

  it('rejects malformed events as invalid responses', async () => {
    const start = sseMessages(fixtureText('message-stream.txt')).slice(0, 2);
    const bad: SseMessage[][] = [
      [...start, { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0}' }],
      [
        ...start,
        {
          event: 'content_block_delta',
          data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}',
        },
      ],
      [...start, { event: 'content_block_delta', data: 'garbage' }],
      [{ event: 'message_start', data: '{"type":"message_start"}' }],
    ];
    for (const messages of bad) {
      await assert.rejects(collect(messages, plain), (e: ProviderError) => e.failure === 'invalid_response');
    }
  });
});
