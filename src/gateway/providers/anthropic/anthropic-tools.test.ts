import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageParam, ToolChoice as SdkToolChoice } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCall, ChatStreamEvent, ToolChoice } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { fromAnthropicResponse, type ResponseContext } from './from-anthropic-response.ts';
import { fromAnthropicStream, type SseMessage } from './from-anthropic-stream.ts';
import { toAnthropicRequest } from './to-anthropic-request.ts';

const options = { defaultMaxTokens: 1024, stream: false };
const weather = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('toAnthropicRequest with tools', () => {
  const loop: ChatCall = {
    model: 'claude-haiku-4-5',
    tools: [weather, { name: 'get_time', parameters: { type: 'object' } }],
    toolChoice: 'required',
    stop: ['END', 'STOP'],
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_2', name: 'get_time', arguments: '' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_1', content: '{"temp":12}' },
      { role: 'tool', toolCallId: 'toolu_2', content: '' },
      { role: 'user', content: 'Also: umbrella?' },
    ],
  };

  it('declares tools and choices, sends tool_use blocks, and merges results with the next user text', () => {
    const { body } = toAnthropicRequest(loop, options);
    // The SDK's own types accept the turns and the choice: the wire shapes are Anthropic's.
    const turns: MessageParam[] = body.messages;
    const choice: SdkToolChoice | undefined = body.tool_choice;
    assert.equal(choice, body.tool_choice);
    assert.equal(turns, body.messages);
    assert.deepEqual(body, {
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      system: 'Be brief.',
      stop_sequences: ['END', 'STOP'],
      tools: [
        { name: 'get_weather', description: 'Current weather', input_schema: weather.parameters },
        { name: 'get_time', input_schema: { type: 'object' } },
      ],
      tool_choice: { type: 'any' },
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp":12}' },
            { type: 'tool_result', tool_use_id: 'toolu_2' },
            { type: 'text', text: 'Also: umbrella?' },
          ],
        },
      ],
    });
  });

  it('maps every tool choice', () => {
    const choices: [ToolChoice, unknown][] = [
      ['auto', { type: 'auto' }],
      ['none', { type: 'none' }],
      ['required', { type: 'any' }],
      [{ name: 'get_weather' }, { type: 'tool', name: 'get_weather' }],
    ];
    for (const [toolChoice, expected] of choices) {
      const { body } = toAnthropicRequest(
        { model: 'm', tools: [weather], toolChoice, messages: [{ role: 'user', content: 'hi' }] },
        options,
      );
      assert.deepEqual(body.tool_choice, expected);
    }
  });

  it('an assistant turn of calls only has no text block; arguments that are not an object become {}', () => {
    const { body } = toAnthropicRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'f', arguments: '[1,2' }] },
          { role: 'tool', toolCallId: 't', content: 'done' },
        ],
      },
      options,
    );
    assert.deepEqual(body.messages.slice(1), [
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'done' }] },
    ]);
  });

  it('a tool message without toolCallId stays a labelled user text', () => {
    const { body } = toAnthropicRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'tool', name: 'lookup', content: '42' },
        ],
      },
      options,
    );
    assert.deepEqual(body.messages, [{ role: 'user', content: 'q\n\nTool result (lookup):\n42' }]);
  });

  it('structured output keeps the caller tools declared but forces its own', () => {
    const { body, jsonTool } = toAnthropicRequest(
      {
        model: 'm',
        tools: [weather],
        toolChoice: 'auto',
        jsonSchema: { name: 'answer', schema: { type: 'object' } },
        messages: [{ role: 'user', content: 'hi' }],
      },
      options,
    );
    assert.deepEqual(
      body.tools?.map((tool) => tool.name),
      ['get_weather', 'answer'],
    );
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'answer' });
    assert.equal(jsonTool?.name, 'answer');
  });
});

const context: ResponseContext = { slot: 'provider-b', requestedModel: 'claude', jsonTool: undefined };

describe('fromAnthropicResponse with tool_use blocks', () => {
  const message = {
    type: 'message',
    model: 'claude-haiku-4-5',
    content: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 10, output_tokens: 20 },
  };

  it('reads parallel calls in order, arguments as the JSON text of input, stop_reason tool_use as tool_calls', () => {
    const result = fromAnthropicResponse(message, context);
    assert.equal(result.content, 'Checking.');
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.toolCalls, [
      { id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'toolu_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });

  it('the forced structured-output tool is the answer, not a call', () => {
    const forced = fromAnthropicResponse(
      { ...message, content: [message.content[1]] },
      { ...context, jsonTool: { name: 'get_weather', wrapped: false } },
    );
    assert.equal(forced.content, '{"city":"Paris"}');
    assert.equal(forced.finishReason, 'stop');
    assert.equal(forced.toolCalls, undefined);
  });

  it('a tool_use block without an id is an invalid_response', () => {
    assert.throws(
      () =>
        fromAnthropicResponse({ ...message, content: [{ type: 'tool_use', name: 'f', input: {} }] }, context),
      (e: unknown) => e instanceof ProviderError && e.failure === 'invalid_response',
    );
  });
});

const event = (type: string, body: object): SseMessage => ({
  event: type,
  data: JSON.stringify({ type, ...body }),
});
const start = event('message_start', {
  message: {
    type: 'message',
    model: 'claude-haiku-4-5',
    content: [],
    usage: { input_tokens: 7, output_tokens: 1 },
  },
});
const toolStart = (index: number, id: string, name: string) =>
  event('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } });
const json = (index: number, partial_json: string) =>
  event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
const stop = (index: number) => event('content_block_stop', { index });
const end = [
  event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } }),
  event('message_stop', {}),
];

async function collect(messages: SseMessage[]): Promise<ChatStreamEvent[]> {
  async function* source() {
    yield* messages;
  }
  const events: ChatStreamEvent[] = [];
  for await (const item of fromAnthropicStream(source(), context)) events.push(item);
  return events;
}

describe('fromAnthropicStream with tool_use blocks', () => {
  it('assembles input_json_delta fragments into one tool_call per block, at content_block_stop', async () => {
    const events = await collect([
      start,
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Checking.' } }),
      stop(0),
      toolStart(1, 'toolu_a', 'get_weather'),
      json(1, ''),
      json(1, '{"city": "Pa'),
      json(1, 'ris"}'),
      stop(1),
      toolStart(2, 'toolu_b', 'get_time'),
      stop(2),
      ...end,
    ]);
    assert.deepEqual(events, [
      { type: 'model', model: 'claude-haiku-4-5', promptUsage: { inputTokens: 7, outputTokens: 0 } },
      { type: 'delta', content: 'Checking.' },
      { type: 'tool_call', call: { id: 'toolu_a', name: 'get_weather', arguments: '{"city": "Paris"}' } },
      { type: 'tool_call', call: { id: 'toolu_b', name: 'get_time', arguments: '{}' } },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 30 } },
    ]);
  });

  it('a tool_use start without id or name is an invalid_response', async () => {
    await assert.rejects(
      collect([
        start,
        event('content_block_start', { index: 0, content_block: { type: 'tool_use', name: 'f' } }),
      ]),
      (e: unknown) => e instanceof ProviderError && e.failure === 'invalid_response',
    );
  });

  it('bounds the argument text a stream may accumulate', async () => {
    const big = 'x'.repeat(1024 * 1024);
    await assert.rejects(
      collect([
        start,
        toolStart(0, 't', 'f'),
        ...Array.from({ length: 5 }, () => json(0, big)),
        stop(0),
        ...end,
      ]),
      (e: unknown) => e instanceof ProviderError && /arguments longer than/.test(e.message),
    );
  });
});
