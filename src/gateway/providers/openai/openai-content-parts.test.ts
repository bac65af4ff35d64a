import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '../provider.ts';
import { toOpenAIChatRequest } from './to-openai-request.ts';

const options = { stream: false, maxTokensField: 'max_completion_tokens' as const, promptCacheKey: 'gw-key' };
const PNG = 'iVBORw0KGgo=';
const image = {
  type: 'image' as const,
  source: { kind: 'base64' as const, mediaType: 'image/png', data: PNG },
};

describe('the OpenAI adapter writes content parts', () => {
  it('puts the images of several tool results after the run of tool messages, in one user message', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Read both.' },
      {
        role: 'assistant',
        content: '',
        parts: [{ type: 'thinking', vendor: 'anthropic', text: 'hm', signature: 's' }],
        toolCalls: [
          { id: 'call_1', name: 'Read', arguments: '{}' },
          { id: 'call_2', name: 'Read', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: 'first',
        toolCallId: 'call_1',
        parts: [{ type: 'text', text: 'first' }, image],
      },
      { role: 'tool', content: '', toolCallId: 'call_2', parts: [{ ...image, detail: 'low' }] },
      { role: 'user', content: 'Which is redder?' },
    ];
    const body = toOpenAIChatRequest({ model: 'gpt-5', messages, reasoning: { effort: 'low' } }, options);
    assert.deepEqual(body.messages.slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'Read', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'first' },
      { role: 'tool', tool_call_id: 'call_2', content: '' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The result of tool call call_1 holds:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: 'The result of tool call call_2 holds:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
        ],
      },
      { role: 'user', content: 'Which is redder?' },
    ]);
    assert.equal(body.reasoning_effort, 'low');
    assert.equal(body.prompt_cache_key, 'gw-key');
  });

  it('a PDF by URL, which Chat Completions cannot take, goes as text naming it', () => {
    const body = toOpenAIChatRequest(
      {
        model: 'gpt-5',
        messages: [
          {
            role: 'user',
            content: 'Sum up.',
            parts: [
              { type: 'text', text: 'Sum up.' },
              { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      },
      options,
    );
    assert.deepEqual(body.messages[0]?.content, [
      { type: 'text', text: 'Sum up.' },
      { type: 'text', text: 'Document: https://example.com/a.pdf' },
    ]);
  });
});
