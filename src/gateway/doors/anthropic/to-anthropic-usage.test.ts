import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResponseUsage } from '../../domain/usage.ts';
import { type GatewayStreamEvent, type SseMessage, toAnthropicEvents } from './to-anthropic-events.ts';
import { toAnthropicMessage } from './to-anthropic-message.ts';
import { toAnthropicStartUsage, toAnthropicUsage } from './to-anthropic-usage.ts';

/** 25,000 tokens in of which 24,000 read from the cache and 600 written (200 of them for an hour). */
const usage: ResponseUsage = {
  tokensIn: 25_000,
  tokensOut: 90,
  estimatedCost: 0.0123,
  estimated: false,
  tokensInCacheRead: 24_000,
  tokensInCacheWrite: 600,
  tokensInCacheWrite1h: 200,
};

const expected = {
  input_tokens: 400,
  output_tokens: 90,
  cache_creation_input_tokens: 600,
  cache_read_input_tokens: 24_000,
  cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 200 },
};

async function collect(events: AsyncIterable<SseMessage>): Promise<SseMessage[]> {
  const all: SseMessage[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('the Anthropic door’s usage', () => {
  it('takes the cached parts out of input_tokens and reports them beside it, as Anthropic does', () => {
    assert.deepEqual(toAnthropicUsage(usage), expected);
    const message = toAnthropicMessage({ id: 'chat_1', model: 'm', message: { content: 'Hi.' }, usage });
    assert.deepEqual(message.usage, expected);
  });

  it('reports no cache as zeros, never null', () => {
    assert.deepEqual(
      toAnthropicUsage({ ...usage, tokensInCacheRead: 0, tokensInCacheWrite: 0, tokensInCacheWrite1h: 0 }),
      {
        input_tokens: 25_000,
        output_tokens: 90,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    );
  });

  it('streams the prompt’s counts in message_start when the upstream gave them first, the totals in message_delta', async () => {
    const promptUsage = {
      inputTokens: 25_000,
      outputTokens: 0,
      cacheReadTokens: 24_000,
      cacheWriteTokens: 600,
      cacheWrite1hTokens: 200,
    };
    const done: GatewayStreamEvent = {
      event: 'done',
      data: { id: 'chat_1', model: 'm', message: { content: 'Hi.' }, finishReason: 'stop', usage },
    };
    async function* source() {
      yield { event: 'delta', data: { content: 'Hi.' } } as GatewayStreamEvent;
      yield done;
    }
    const events = await collect(toAnthropicEvents({ id: 'chat_1', model: 'm', promptUsage }, source()));
    const start = events[0]?.data as { message: { usage: unknown } };
    assert.deepEqual(start.message.usage, { ...expected, output_tokens: 0 });
    const delta = events.find((e) => e.event === 'message_delta')?.data as { usage: unknown };
    assert.deepEqual(delta.usage, { ...expected, cost_usd: 0.0123 });
  });

  it('starts from zeros when the upstream reports its counts only at the end (OpenAI, Gemini)', () => {
    assert.deepEqual(toAnthropicStartUsage(undefined), {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
  });
});
