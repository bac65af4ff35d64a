import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import type { ChatCall, ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { fromOpenAIChatResponse } from './from-openai-response.ts';
import { eventsFromCompletion, fromOpenAIStream, type StreamMessage } from './from-openai-stream.ts';
import { toOpenAIChatRequest } from './to-openai-request.ts';

const plain = { stream: false, maxTokensField: 'max_tokens' } as const;
const weather = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('toOpenAIChatRequest with tools', () => {
  const loop: ChatCall = {
    model: 'gpt-4o-mini',
    tools: [weather, { name: 'get_time', parameters: { type: 'object' } }],
    toolChoice: 'required',
    stop: ['END'],
    messages: [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', content: '{"temp":12}' },
      { role: 'tool', toolCallId: 'call_2', content: 'sunny', name: 'get_weather' },
      { role: 'tool', content: 'no id here', name: 'legacy' },
    ],
  };

  it('sends function tools, tool_choice, stop, assistant tool_calls with null content, and role tool', () => {
    const body: ChatCompletionCreateParamsBase = toOpenAIChatRequest(loop, plain);
    assert.deepEqual(body, {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":12}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'sunny' },
        { role: 'user', content: 'Tool result (legacy): no id here' },
      ],
      tools: [
        { type: 'function', function: weather },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
      ],
      tool_choice: 'required',
      stop: ['END'],
    });
  });

  it('keeps an assistant text beside its calls, and names a forced tool the OpenAI way', () => {
    const body = toOpenAIChatRequest(
      {
        model: 'm',
        tools: [weather],
        toolChoice: { name: 'get_weather' },
        messages: [
          {
            role: 'assistant',
            content: 'Let me look.',
            toolCalls: [{ id: 'c', name: 'get_weather', arguments: '{}' }],
          },
        ],
      },
      plain,
    );
    assert.equal(body.messages[0]?.content, 'Let me look.');
    assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  });

  it('sends neither tools nor tool_choice for an empty tool list, and no empty stop', () => {
    const body = toOpenAIChatRequest(
      { model: 'm', tools: [], toolChoice: 'none', stop: [], messages: [{ role: 'user', content: 'hi' }] },
      plain,
    );
    assert.equal('tools' in body, false);
    assert.equal('tool_choice' in body, false);
    assert.equal('stop' in body, false);
  });
});

const toolMessage = (extra: object) => ({
  id: 'chatcmpl-9',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, message: { role: 'assistant', content: null, ...extra }, finish_reason: 'tool_calls' },
  ],
});

describe('fromOpenAIChatResponse with tool calls', () => {
  it('reads parallel tool_calls in order, with the arguments text as written', () => {
    const result = fromOpenAIChatResponse(
      'provider-a',
      toolMessage({
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city": "Rome"}' },
          },
        ],
      }),
      'm',
    );
    assert.equal(result.content, '');
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.toolCalls, [
      { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_b', name: 'get_weather', arguments: '{"city": "Rome"}' },
    ]);
  });

  it('a forced call answered with finish_reason stop is reported as tool_calls', () => {
    const body = toolMessage({
      tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    body.choices[0]!.finish_reason = 'stop';
    assert.equal(fromOpenAIChatResponse('provider-a', body, 'm').finishReason, 'tool_calls');
  });

  it('the deprecated function_call, and a call without id or with object arguments, get deterministic ids', () => {
    const legacy = toolMessage({ function_call: { name: 'f', arguments: '{"a":1}' } });
    legacy.choices[0]!.finish_reason = 'function_call';
    const first = fromOpenAIChatResponse('provider-a', legacy, 'm');
    assert.deepEqual(first.toolCalls, [{ id: 'call_chatcmpl-9_0', name: 'f', arguments: '{"a":1}' }]);
    assert.equal(first.finishReason, 'tool_calls');
    const objectArgs = fromOpenAIChatResponse(
      'provider-a',
      toolMessage({ tool_calls: [{ type: 'function', function: { name: 'g', arguments: { b: 2 } } }] }),
      'm',
    );
    assert.deepEqual(objectArgs.toolCalls, [{ id: 'call_chatcmpl-9_0', name: 'g', arguments: '{"b":2}' }]);
  });

  it('an answer without calls has no toolCalls field', () => {
    const body = toolMessage({ content: 'hi' });
    assert.equal('toolCalls' in fromOpenAIChatResponse('provider-a', body, 'm'), false);
  });

  it('malformed tool calls are an invalid_response', () => {
    for (const extra of [
      { tool_calls: 'nope' },
      { tool_calls: [{ id: 'x', type: 'function' }] },
      { tool_calls: [{ id: 'x', type: 'function', function: { arguments: '{}' } }] },
    ]) {
      assert.throws(
        () => fromOpenAIChatResponse('provider-a', toolMessage(extra), 'm'),
        (e: unknown) => e instanceof ProviderError && e.failure === 'invalid_response',
      );
    }
  });
});

const data = (value: unknown): StreamMessage => ({ data: JSON.stringify(value) });
const fragments = (toolCalls: unknown[], finish: string | null = null) =>
  data({
    id: 'chatcmpl-s',
    model: 'm',
    choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finish }],
  });
const finishChunk = (reason: string) =>
  data({ id: 'chatcmpl-s', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const DONE: StreamMessage = { data: '[DONE]' };

async function collect(messages: StreamMessage[]): Promise<ChatStreamEvent[]> {
  async function* source() {
    yield* messages;
  }
  const events: ChatStreamEvent[] = [];
  for await (const event of fromOpenAIStream('provider-a', source(), 'm')) events.push(event);
  return events;
}

describe('fromOpenAIStream with tool calls', () => {
  it('assembles interleaved parallel calls from fragments and sends each once, before finish', async () => {
    const events = await collect([
      data({
        id: 'chatcmpl-s',
        model: 'm',
        choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }],
      }),
      fragments([
        { index: 0, id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '' } },
      ]),
      fragments([{ index: 0, function: { arguments: '{"ci' } }]),
      fragments([
        { index: 1, id: 'call_r', type: 'function', function: { name: 'get_weather', arguments: '{"city"' } },
      ]),
      fragments([{ index: 0, function: { arguments: 'ty":"Pa' } }]),
      fragments([
        { index: 1, function: { arguments: ':"Rome"}' } },
        { index: 0, function: { arguments: 'ris"}' } },
      ]),
      finishChunk('tool_calls'),
      data({ id: 'chatcmpl-s', model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 9 } }),
      DONE,
    ]);
    assert.deepEqual(events, [
      { type: 'model', model: 'm' },
      { type: 'tool_call', call: { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { type: 'tool_call', call: { id: 'call_r', name: 'get_weather', arguments: '{"city":"Rome"}' } },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 9 } },
    ]);
  });

  it('text before a call streams as deltas; a forced call finishing with stop is tool_calls', async () => {
    const events = await collect([
      data({
        id: 'c',
        model: 'm',
        choices: [{ index: 0, delta: { content: 'Checking.' }, finish_reason: null }],
      }),
      fragments([{ index: 0, id: 'k', type: 'function', function: { name: 'f', arguments: '{}' } }], 'stop'),
      DONE,
    ]);
    assert.deepEqual(events.slice(1), [
      { type: 'delta', content: 'Checking.' },
      { type: 'tool_call', call: { id: 'k', name: 'f', arguments: '{}' } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('calls without index or id (some compatible servers) are kept apart and get deterministic ids', async () => {
    const events = await collect([
      fragments([{ type: 'function', function: { name: 'a', arguments: '{"x":1}' } }]),
      fragments([{ type: 'function', function: { name: 'b', arguments: '{"y":' } }]),
      fragments([{ function: { arguments: '2}' } }]),
      DONE,
    ]);
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_call'),
      [
        { type: 'tool_call', call: { id: 'call_chatcmpl-s_0', name: 'a', arguments: '{"x":1}' } },
        { type: 'tool_call', call: { id: 'call_chatcmpl-s_1', name: 'b', arguments: '{"y":2}' } },
      ],
    );
  });

  it('a call still open when [DONE] arrives without a finish_reason is sent at the end', async () => {
    const events = await collect([
      fragments([{ index: 0, id: 'z', function: { name: 'f', arguments: '{}' } }]),
      DONE,
    ]);
    assert.deepEqual(events.at(-1), { type: 'tool_call', call: { id: 'z', name: 'f', arguments: '{}' } });
  });

  it('a streamed call without a name, or fragments that are not a list, is an invalid_response', async () => {
    for (const bad of [
      [fragments([{ index: 0, id: 'z', function: { arguments: '{}' } }]), finishChunk('tool_calls')],
      [data({ model: 'm', choices: [{ index: 0, delta: { tool_calls: 7 }, finish_reason: null }] })],
    ]) {
      await assert.rejects(
        collect([...bad, DONE]),
        (e: unknown) => e instanceof ProviderError && e.failure === 'invalid_response',
      );
    }
  });

  it('bounds the number of calls one stream may open', async () => {
    const many = Array.from({ length: 129 }, (_, index) =>
      fragments([{ index, id: `c${index}`, function: { name: 'f', arguments: '' } }]),
    );
    await assert.rejects(
      collect([...many, DONE]),
      (e: unknown) => e instanceof ProviderError && /more than 128 tool calls/.test(e.message),
    );
  });
});

describe('eventsFromCompletion with tool calls', () => {
  it('a whole completion with calls replays them as tool_call events before finish', () => {
    const call = { id: 'a', name: 'f', arguments: '{}' };
    assert.deepEqual(
      eventsFromCompletion({
        model: 'm',
        content: '',
        toolCalls: [call],
        finishReason: 'tool_calls',
        usage: undefined,
      }),
      [
        { type: 'model', model: 'm' },
        { type: 'tool_call', call },
        { type: 'finish', reason: 'tool_calls' },
      ],
    );
  });
});
