import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toAnthropicTurns } from './anthropic/anthropic-turns.ts';
import { boundedCallId } from './bounded-call-id.ts';
import { encodeSignedCallId } from './gemini/signed-call-id.ts';
import { toOpenAIChatRequest } from './openai/to-openai-request.ts';
import type { ChatMessage } from './provider.ts';

/** A history begun on a Gemini 3 slot: its call's id carries a signature of a realistic size. */
const signedId = encodeSignedCallId(
  'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_0',
  Buffer.alloc(4172, 7).toString('base64'),
);
const history: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: '', toolCalls: [{ id: signedId, name: 'get_weather', arguments: '{}' }] },
  { role: 'tool', toolCallId: signedId, content: '18' },
];

describe('call ids sent to other vendors', () => {
  it('a signed Gemini id goes to OpenAI as 37 characters, the same on the call and on its result', () => {
    assert.ok(signedId.length > 5000);
    const request = toOpenAIChatRequest(
      { model: 'gpt-4o-mini', messages: history },
      { stream: false, maxTokensField: 'max_tokens' },
    );
    const [, assistant, tool] = request.messages;
    const callId = assistant?.role === 'assistant' ? assistant.tool_calls?.[0]?.id : undefined;
    assert.match(callId ?? '', /^call_[0-9a-f]{32}$/);
    assert.equal(tool?.role === 'tool' ? tool.tool_call_id : undefined, callId);
  });

  it('and to Anthropic as toolu_ and 32 hex characters, paired the same way', () => {
    const [, assistant, results] = toAnthropicTurns(history);
    const use = Array.isArray(assistant?.content) ? assistant.content[0] : undefined;
    const result = Array.isArray(results?.content) ? results.content[0] : undefined;
    assert.ok(use?.type === 'tool_use' && result?.type === 'tool_result');
    assert.match(use.id, /^toolu_[0-9a-f]{32}$/);
    assert.equal(result.tool_use_id, use.id);
  });

  it('ids within the vendor limits go unchanged; others are shortened the same way every time', () => {
    assert.equal(boundedCallId('call_Abc123', 'openai'), 'call_Abc123');
    assert.equal(
      boundedCallId('toolu_01A09q90qw90lq917835lq9', 'anthropic'),
      'toolu_01A09q90qw90lq917835lq9',
    );
    assert.equal(boundedCallId('x'.repeat(41), 'openai'), boundedCallId('x'.repeat(41), 'openai'));
    assert.notEqual(boundedCallId('x'.repeat(41), 'openai'), boundedCallId('x'.repeat(42), 'openai'));
    assert.match(boundedCallId('functions.get_weather:0', 'anthropic'), /^toolu_[0-9a-f]{32}$/);
    assert.equal(boundedCallId('functions.get_weather:0', 'openai'), 'functions.get_weather:0');
  });
});
