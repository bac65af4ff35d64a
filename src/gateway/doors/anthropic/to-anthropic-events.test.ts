import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolCall } from '../../domain/messages.ts';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import { type GatewayStreamEvent, type SseMessage, toAnthropicEvents } from './to-anthropic-events.ts';
import type { AnsweredChat } from './to-anthropic-message.ts';

const usage = { tokensIn: 20, tokensOut: 9, estimatedCost: 0.00042, estimated: false, ...NO_CACHE_USAGE };
const start = { id: 'chat_1', model: 'm' };
const weather: ToolCall = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
const time: ToolCall = { id: 'call_2', name: 'get_time', arguments: '{}' };

function done(
  content: string,
  toolCalls?: ToolCall[],
  finishReason: AnsweredChat['finishReason'] = 'stop',
): GatewayStreamEvent {
  return {
    event: 'done',
    data: { id: 'chat_1', model: 'm', message: { content, toolCalls }, finishReason, usage },
  };
}

async function* from(events: GatewayStreamEvent[]): AsyncGenerator<GatewayStreamEvent> {
  yield* events;
}

async function collect(events: GatewayStreamEvent[], singleToolCall = false): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of toAnthropicEvents(start, from(events), singleToolCall)) out.push(message);
  return out;
}

/** Each event as `name` or `name:index`, and its delta text or JSON: the sequence at a glance. */
function outline(messages: SseMessage[]): string[] {
  return messages.map(({ event, data }) => {
    const d = data as {
      index?: number;
      delta?: { text?: string; partial_json?: string; stop_reason?: string };
    };
    const index = d.index === undefined ? '' : `:${d.index}`;
    const detail = d.delta?.text ?? d.delta?.partial_json ?? d.delta?.stop_reason;
    return `${event}${index}${detail === undefined ? '' : ` ${detail}`}`;
  });
}

describe('toAnthropicEvents', () => {
  it('a text stream: start, ping, one text block, message_delta with usage and cost, stop', async () => {
    const messages = await collect([
      { event: 'delta', data: { content: 'Hel' } },
      { event: 'delta', data: { content: '' } },
      { event: 'delta', data: { content: 'lo' } },
      done('Hello'),
    ]);
    assert.deepEqual(outline(messages), [
      'message_start',
      'ping',
      'content_block_start:0',
      'content_block_delta:0 Hel',
      'content_block_delta:0 lo',
      'content_block_stop:0',
      'message_delta end_turn',
      'message_stop',
    ]);
    for (const { event, data } of messages) assert.equal(data.type, event);
    assert.deepEqual(messages.at(-2)?.data, {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 20,
        output_tokens: 9,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        cost_usd: 0.00042,
      },
    });
  });

  it('message_delta says which stop sequence ended the text, when the answer carries one', async () => {
    const stopped = done('Hello');
    if (stopped.event === 'done') stopped.data.stopSequence = '###';
    const messages = await collect([{ event: 'delta', data: { content: 'Hello' } }, stopped]);
    assert.deepEqual((messages.at(-2)?.data as { delta?: unknown } | undefined)?.delta, {
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      stop_details: null,
      container: null,
    });
  });

  it('text then tool calls: the text block closes, each call is a block with its whole input', async () => {
    const messages = await collect([
      { event: 'delta', data: { content: 'Checking.' } },
      { event: 'tool_call', data: weather },
      { event: 'tool_call', data: time },
      done('Checking.', [weather, time], 'tool_calls'),
    ]);
    assert.deepEqual(outline(messages), [
      'message_start',
      'ping',
      'content_block_start:0',
      'content_block_delta:0 Checking.',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1 {"city":"Paris"}',
      'content_block_stop:1',
      'content_block_start:2',
      'content_block_delta:2 {}',
      'content_block_stop:2',
      'message_delta tool_use',
      'message_stop',
    ]);
    assert.deepEqual((messages[5]?.data as { content_block: unknown } | undefined)?.content_block, {
      type: 'tool_use',
      id: 'call_1',
      name: 'get_weather',
      input: {},
    });
  });

  it('calls only the final answer holds are sent before message_delta; disable_parallel_tool_use keeps one', async () => {
    const late = await collect([done('', [weather, time], 'tool_calls')]);
    assert.deepEqual(
      outline(late).filter((line) => line.startsWith('content_block_start')),
      ['content_block_start:0', 'content_block_start:1'],
    );
    const single = await collect(
      [
        { event: 'tool_call', data: weather },
        { event: 'tool_call', data: time },
        done('', [weather, time], 'tool_calls'),
      ],
      true,
    );
    assert.deepEqual(
      outline(single).filter((line) => line.startsWith('content_block_delta')),
      ['content_block_delta:0 {"city":"Paris"}'],
    );
  });

  it("an error after the first byte closes the open block and ends with Anthropic's error event", async () => {
    const messages = await collect([
      { event: 'delta', data: { content: 'Hel' } },
      {
        event: 'error',
        data: { error: { code: 'upstream_error', message: 'provider-a failed during the stream' } },
      },
    ]);
    assert.deepEqual(outline(messages).slice(-2), ['content_block_stop:0', 'error']);
    assert.deepEqual(messages.at(-1)?.data, {
      type: 'error',
      error: { type: 'api_error', message: 'provider-a failed during the stream' },
    });
  });

  it('the message_start message is an empty Message with the stream id and model', async () => {
    const [first] = await collect([done('')]);
    assert.deepEqual((first?.data as { message: unknown } | undefined)?.message, {
      id: 'chat_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
  });
});
