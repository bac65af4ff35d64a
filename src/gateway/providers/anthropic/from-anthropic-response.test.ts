import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureJson } from '../../../../test/helpers/mock-anthropic-server.ts';
import type { ProviderError } from '../provider-error.ts';
import { mapStopReason } from './anthropic-stop-reason.ts';
import { fromAnthropicResponse, type ResponseContext } from './from-anthropic-response.ts';

const plain: ResponseContext = {
  slot: 'provider-b',
  requestedModel: 'claude-sonnet-4-5',
  jsonTool: undefined,
};
const forced: ResponseContext = { ...plain, jsonTool: { name: 'city_facts', wrapped: false } };

describe('fromAnthropicResponse', () => {
  it('reads a text message; input tokens include cache reads and writes', () => {
    const result = fromAnthropicResponse(fixtureJson('message.json'), plain);
    assert.deepEqual(result, {
      model: 'claude-sonnet-4-5-20250929',
      content: 'Paris is the capital of France.',
      finishReason: 'stop',
      usage: {
        inputTokens: 21 + 2048 + 1024,
        outputTokens: 12,
        cacheReadTokens: 2048,
        cacheWriteTokens: 1024,
      },
    });
  });

  it('returns thinking blocks apart with their signature, concatenates text blocks, reports thinking tokens within output', () => {
    const result = fromAnthropicResponse(fixtureJson('message-thinking.json'), plain);
    assert.equal(result.content, '17 × 23 = 391');
    assert.deepEqual(result.thinking, [
      {
        type: 'thinking',
        vendor: 'anthropic',
        text: 'The user asks for 17 * 23. 17 * 20 = 340, 17 * 3 = 51, so 391.',
        signature: 'EuYBCkQYAiJAgCs1le6/Pol5Z4/JMomVOouGrWdhYNsH3ukzUECbB6iWrSQtsQuRHJID6lWV',
      },
    ]);
    assert.equal(result.finishReason, 'length');
    assert.deepEqual(result.usage, {
      inputTokens: 46,
      outputTokens: 95,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 80,
    });
  });

  it('returns a redacted_thinking block as its data, and leaves out a thinking block without a signature', () => {
    const body = {
      type: 'message',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
        { type: 'thinking', thinking: 'unsigned', signature: '' },
        { type: 'text', text: 'Done.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 3 },
    };
    const result = fromAnthropicResponse(body, plain);
    assert.equal(result.content, 'Done.');
    assert.deepEqual(result.thinking, [
      { type: 'thinking', vendor: 'anthropic', text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
    ]);
  });

  it('has no thinking when the answer had none', () => {
    const result = fromAnthropicResponse(fixtureJson('tool-message.json'), plain);
    assert.equal(result.thinking, undefined);
  });

  it('answers with the forced tool input as JSON, and tool_use is a normal stop', () => {
    const result = fromAnthropicResponse(fixtureJson('tool-message.json'), forced);
    assert.deepEqual(JSON.parse(result.content), { city: 'Paris', country: 'France', population: 2102650 });
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.usage?.inputTokens, 412);
  });

  it('unwraps "value" when the schema was wrapped, and passes an unwrapped input on for validation', () => {
    const message = fixtureJson('tool-message.json');
    const wrapped = { ...forced, jsonTool: { name: 'city_facts', wrapped: true } };
    message.content[0].input = { value: [1, 2, 3] };
    assert.equal(fromAnthropicResponse(message, wrapped).content, '[1,2,3]');
    message.content[0].input = { value: null };
    assert.equal(fromAnthropicResponse(message, wrapped).content, 'null');
    message.content[0].input = { other: 1 };
    assert.equal(fromAnthropicResponse(message, wrapped).content, '{"other":1}');
  });

  it('ignores text beside the forced tool, and falls back to text when the tool never came', () => {
    const message = fixtureJson('tool-message.json');
    message.content.unshift({ type: 'text', text: 'Here you go:' });
    assert.equal(JSON.parse(fromAnthropicResponse(message, forced).content).city, 'Paris');
    const refused = { ...fixtureJson('message.json'), stop_reason: 'refusal' };
    const result = fromAnthropicResponse(refused, forced);
    assert.equal(result.content, 'Paris is the capital of France.');
    assert.equal(result.finishReason, 'content_filter');
  });

  it('says which stop sequence ended the answer, and only when one did', () => {
    const stopped = { ...fixtureJson('message.json'), stop_reason: 'stop_sequence', stop_sequence: '###' };
    const result = fromAnthropicResponse(stopped, plain);
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.stopSequence, '###');
    const ended = { ...fixtureJson('message.json'), stop_reason: 'end_turn', stop_sequence: '###' };
    assert.equal('stopSequence' in fromAnthropicResponse(ended, plain), false);
  });

  it('a tool_use of another name is not the answer', () => {
    const message = fixtureJson('tool-message.json');
    message.content[0].name = 'something_else';
    assert.equal(fromAnthropicResponse(message, forced).content, '');
    assert.equal(fromAnthropicResponse(message, plain).finishReason, 'tool_calls');
  });

  it('usage is undefined when input or output counts are missing; the model falls back to the requested one', () => {
    const message = fixtureJson('message.json');
    message.usage = { output_tokens: 3 };
    delete message.model;
    const result = fromAnthropicResponse(message, plain);
    assert.equal(result.usage, undefined);
    assert.equal(result.model, 'claude-sonnet-4-5');
    message.usage = { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: null };
    assert.deepEqual(fromAnthropicResponse(message, plain).usage, { inputTokens: 5, outputTokens: 3 });
  });

  const malformed: [string, unknown][] = [
    ['not an object', 'hello'],
    ['no content', { type: 'message', model: 'm' }],
    ['content not an array', { content: 'text' }],
    ['a block that is not an object', { content: ['text'] }],
    ['a text block without text', { content: [{ type: 'text' }] }],
  ];
  for (const [name, body] of malformed) {
    it(`rejects ${name} as an invalid response`, () => {
      assert.throws(
        () => fromAnthropicResponse(body, plain),
        (e: ProviderError) => e.failure === 'invalid_response' && e.slot === 'provider-b' && !e.retryable,
      );
    });
  }
});

describe('mapStopReason', () => {
  const table: [unknown, boolean, string][] = [
    ['end_turn', false, 'stop'],
    ['stop_sequence', false, 'stop'],
    ['max_tokens', false, 'length'],
    ['model_context_window_exceeded', false, 'length'],
    ['tool_use', true, 'stop'],
    ['tool_use', false, 'tool_calls'],
    ['refusal', false, 'content_filter'],
    ['pause_turn', false, 'other'],
    [null, false, 'other'],
    ['something_new', true, 'other'],
  ];
  for (const [reason, forcedTool, expected] of table) {
    it(`${String(reason)}${forcedTool ? ' (forced tool)' : ''} -> ${expected}`, () => {
      assert.equal(mapStopReason(reason, forcedTool), expected);
    });
  }
});
