import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { encodingTokenizer } from '../../domain/encoding-tokenizer.ts';
import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import { o200kEncoding } from '../../tokenizer/o200k-encoding.ts';
import { answerMessage, estimateChatUsage, toChatCall } from './run-chat.ts';

const messages: ChatMessage[] = [{ role: 'user', content: 'Weather in Lyon?' }];
const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'The current weather in a city, with temperature, wind and sky',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const candidate = { provider: 'provider-a' as const, model: 'gpt-4o-mini' };
const capabilities = PROVIDER_KIND_ROWS.anthropic.capabilities;

describe('chat service helpers', () => {
  it('passes tools, toolChoice and stop to the adapter; a choice without tools is dropped', () => {
    const call = toChatCall(
      { messages, tools, toolChoice: { name: 'get_weather' }, stop: ['END'], temperature: 1.5 },
      candidate,
      capabilities,
    );
    assert.deepEqual(call.tools, tools);
    assert.deepEqual(call.toolChoice, { name: 'get_weather' });
    assert.deepEqual(call.stop, ['END']);
    assert.equal(call.temperature, 1, 'clamped to the kind');
    const bare = toChatCall(
      { messages, tools: [], toolChoice: 'required', stop: [] },
      candidate,
      capabilities,
    );
    assert.deepEqual(Object.keys(bare).sort(), ['messages', 'model']);
  });

  it('estimates usage with the tool definitions in, and the calls made out', async () => {
    const calls = [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Lyon"}' }];
    const tokenizer = encodingTokenizer(o200kEncoding());
    const plain = await estimateChatUsage(tokenizer, messages, '');
    const withTools = await estimateChatUsage(tokenizer, messages, '', tools, calls);
    assert.ok(
      withTools.inputTokens > plain.inputTokens + 10,
      `${withTools.inputTokens} vs ${plain.inputTokens}`,
    );
    assert.equal(plain.outputTokens, 0);
    assert.ok(withTools.outputTokens > 5, `${withTools.outputTokens}`);
  });

  it('guesses usage from the characters, four to a token, when the tokenizer cannot count', async () => {
    const failing: Tokenizer = {
      count: () => Promise.reject(new Error('the tokenizer is unavailable')),
      tokenizeAnswer: () => Promise.reject(new Error('the tokenizer is unavailable')),
    };
    const calls = [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Lyon"}' }];
    const usage = await estimateChatUsage(failing, messages, 'Sunny, 21 degrees.', tools, calls);
    const toolChars =
      tools[0]!.name.length + 2 + tools[0]!.description!.length + JSON.stringify(tools[0]!.parameters).length;
    assert.equal(usage.inputTokens, Math.ceil(('Weather in Lyon?'.length + toolChars) / 4));
    assert.equal(
      usage.outputTokens,
      Math.ceil(('Sunny, 21 degrees.'.length + 'c1get_weather{"city":"Lyon"}'.length) / 4),
    );
  });

  it('puts toolCalls on the answer only when the model made some', () => {
    assert.deepEqual(answerMessage('hi', []), { role: 'assistant', content: 'hi' });
    assert.deepEqual(answerMessage('hi', undefined), { role: 'assistant', content: 'hi' });
    const calls = [{ id: 'c1', name: 'a', arguments: '{}' }];
    assert.deepEqual(answerMessage('', calls), { role: 'assistant', content: '', toolCalls: calls });
  });
});
