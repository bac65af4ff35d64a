import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import {
  type AnsweredChat,
  toAnthropicMessage,
  toStopReason,
  toToolInput,
  UNPARSED_ARGUMENTS_KEY,
} from './to-anthropic-message.ts';

const usage = { tokensIn: 12, tokensOut: 7, estimatedCost: 0.000123, estimated: false, ...NO_CACHE_USAGE };

function answer(extra: Partial<AnsweredChat> = {}): AnsweredChat {
  return {
    id: 'chat_1',
    model: 'gpt-x',
    message: { content: 'Hello.' },
    finishReason: 'stop',
    usage,
    ...extra,
  };
}

describe('toAnthropicMessage', () => {
  it('a text answer: one text block, end_turn, usage as counted', () => {
    assert.deepEqual(toAnthropicMessage(answer()), {
      id: 'chat_1',
      type: 'message',
      role: 'assistant',
      model: 'gpt-x',
      content: [{ type: 'text', text: 'Hello.', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
  });

  it('tool calls become tool_use blocks after the text, with parsed input and stop_reason tool_use', () => {
    const calls = [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'get_time', arguments: '' },
    ];
    const message = toAnthropicMessage(
      answer({ message: { content: '', toolCalls: calls }, finishReason: 'tool_calls' }),
    );
    assert.deepEqual(message.content, [
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} },
    ]);
    assert.equal(message.stop_reason, 'tool_use');
    const single = toAnthropicMessage(answer({ message: { content: 'x', toolCalls: calls } }), true);
    assert.deepEqual(
      single.content.map((block) => block.type),
      ['text', 'tool_use'],
    );
  });
});

describe('toToolInput', () => {
  it('parses a JSON object; keeps anything else as text under a key of its own', () => {
    assert.deepEqual(toToolInput('{"a":[1,2]}'), { a: [1, 2] });
    assert.deepEqual(toToolInput('  '), {});
    assert.deepEqual(toToolInput('{"a":'), { [UNPARSED_ARGUMENTS_KEY]: '{"a":' });
    assert.deepEqual(toToolInput('[1]'), { [UNPARSED_ARGUMENTS_KEY]: '[1]' });
    assert.deepEqual(toToolInput('"text"'), { [UNPARSED_ARGUMENTS_KEY]: '"text"' });
  });
});

describe('a stop sequence in the Message', () => {
  it('is stop_sequence with the sequence when the answer carries one, null otherwise', () => {
    const stopped = toAnthropicMessage(answer({ stopSequence: '###' }));
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, '###');
    const plain = toAnthropicMessage(answer());
    assert.equal(plain.stop_reason, 'end_turn');
    assert.equal(plain.stop_sequence, null);
  });

  it('tool calls and other reasons win over a sequence', () => {
    const call = { id: 'call_1', name: 'f', arguments: '{}' };
    const withCall = toAnthropicMessage(
      answer({ stopSequence: '###', message: { content: '', toolCalls: [call] } }),
    );
    assert.equal(withCall.stop_reason, 'tool_use');
    assert.equal(withCall.stop_sequence, null);
    const cut = toAnthropicMessage(answer({ stopSequence: '###', finishReason: 'length' }));
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.equal(cut.stop_sequence, null);
  });
});

describe('toStopReason', () => {
  it("maps the gateway's finish reasons", () => {
    assert.equal(toStopReason('stop', false), 'end_turn');
    assert.equal(toStopReason('length', false), 'max_tokens');
    assert.equal(toStopReason('tool_calls', false), 'tool_use');
    assert.equal(toStopReason('content_filter', false), 'refusal');
    assert.equal(toStopReason('other', false), 'end_turn');
    assert.equal(toStopReason(undefined, false), 'end_turn');
    // A forced call ends with `stop` on some upstreams: the calls decide.
    assert.equal(toStopReason('stop', true), 'tool_use');
  });
});
