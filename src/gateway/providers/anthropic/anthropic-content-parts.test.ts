import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCall, ChatMessage } from '../provider.ts';
import { toAnthropicRequest } from './to-anthropic-request.ts';

const options = { defaultMaxTokens: 4096, stream: false };
const PNG = 'iVBORw0KGgo=';

/** A tool loop whose assistant turn carries the given parts (thinking, or none). */
function toolLoop(assistantParts: ChatMessage['parts']): ChatMessage[] {
  return [
    { role: 'user', content: 'Read a.png' },
    {
      role: 'assistant',
      content: '',
      parts: assistantParts,
      toolCalls: [{ id: 'toolu_1', name: 'Read', arguments: '{"file_path":"a.png"}' }],
    },
    {
      role: 'tool',
      content: '',
      toolCallId: 'toolu_1',
      parts: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } }],
    },
  ];
}

function call(messages: ChatMessage[], extra: Partial<ChatCall> = {}): ChatCall {
  return { model: 'claude-sonnet-4-5', messages, maxTokens: 32000, ...extra };
}

describe('the Anthropic adapter writes content parts and thinking', () => {
  it("keeps Anthropic's thinking with its signature first, leaves other vendors' out, images in tool results", () => {
    const { body } = toAnthropicRequest(
      call(
        toolLoop([
          { type: 'thinking', vendor: 'gemini', text: 'not mine', signature: 'g' },
          { type: 'thinking', vendor: 'anthropic', text: 'Reading it.', signature: 'sig-1' },
          { type: 'thinking', vendor: 'anthropic', text: '', redacted: 'ZW5j' },
        ]),
        { reasoning: { effort: 'high', budgetTokens: 31999 }, temperature: 0.2 },
      ),
      options,
    );
    assert.deepEqual(body.messages[1]?.content, [
      { type: 'thinking', thinking: 'Reading it.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'ZW5j' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.png' } },
    ]);
    assert.deepEqual(body.messages[2]?.content, [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }],
      },
    ]);
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 31999 });
    assert.equal(body.temperature, undefined);
  });

  it('asks for no thinking where Anthropic would refuse it', () => {
    const reasoning = { effort: 'medium' as const };
    // A tool loop whose assistant turn has no thinking of Anthropic's (it came through another vendor).
    assert.equal(
      toAnthropicRequest(call(toolLoop(undefined), { reasoning }), options).body.thinking,
      undefined,
    );
    // A budget that does not fit below max_tokens.
    const short = call([{ role: 'user', content: 'Hi' }], { reasoning, maxTokens: 1000 });
    assert.equal(toAnthropicRequest(short, options).body.thinking, undefined);
    // A forced tool (structured output).
    const json = call([{ role: 'user', content: 'Hi' }], {
      reasoning,
      jsonSchema: { name: 'x', schema: { type: 'object' } },
    });
    assert.equal(toAnthropicRequest(json, options).body.thinking, undefined);
    // Otherwise the effort's budget, below max_tokens.
    const plain = call([{ role: 'user', content: 'Hi' }], { reasoning, maxTokens: 5000 });
    assert.deepEqual(toAnthropicRequest(plain, options).body.thinking, {
      type: 'enabled',
      budget_tokens: 4999,
    });
  });

  it('writes a user turn with media as blocks, cache markers as cache_control, a URL PDF as a URL document', () => {
    const { body } = toAnthropicRequest(
      call([
        {
          role: 'user',
          content: 'Compare.',
          parts: [
            { type: 'text', text: 'Compare.', cache: { ttl: '1h' } },
            {
              type: 'file',
              source: { kind: 'url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
            },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/b.png' }, cache: {} },
          ],
        },
      ]),
      options,
    );
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
          {
            type: 'image',
            source: { type: 'url', url: 'https://example.com/b.png' },
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });
});
