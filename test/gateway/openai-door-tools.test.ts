import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
};
const TIME: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
};

/** Arguments the simulated model wrote must fit the tool's schema. */
function assertWeatherArguments(text: string): void {
  const args = JSON.parse(text) as { city?: unknown; unit?: unknown };
  assert.equal(typeof args.city, 'string');
  assert.ok(args.unit === 'celsius' || args.unit === 'fahrenheit');
}

describe('OpenAI door: tool calling on the simulated provider', () => {
  const gw = shareGateway();
  let client: OpenAI;
  let baseURL = '';
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    baseURL = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`;
    client = new OpenAI({ baseURL, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
  });

  it('a two-step loop with the official SDK: a call, its result, then the answer', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Lyon?' }];
    const first = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools: [WEATHER, TIME],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const choice = first.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    const calls = choice?.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.ok(call.id.length > 0);
    assertWeatherArguments(call.function.arguments);

    messages.push(choice?.message as ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call.id,
      content: '{"temperature": 21, "sky": "clear"}',
    });
    const second = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools: [WEATHER, TIME],
    });
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.ok((second.choices[0]?.message.content ?? '').length > 0);
    assert.equal(second.choices[0]?.message.tool_calls, undefined);
  });

  it("streamed calls assembled by the SDK's stream helper, parallel ones each at its index", async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather and time in Lyon?' }],
      tools: [WEATHER, TIME],
      metadata: { simulated: { toolCall: ['get_weather', 'get_time'] } } as never,
    });
    const indexes: number[] = [];
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) indexes.push(delta.index);
    }
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]?.message;
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    const names = (message?.tool_calls ?? []).map(
      (c) => (c as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function.name,
    );
    assert.deepEqual(names, ['get_weather', 'get_time']);
    assert.deepEqual(indexes, [0, 1]);
    const weather = message?.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assertWeatherArguments(weather.function.arguments);
  });

  it("the SDK's runTools loop runs the tool and ends with the model's answer", async () => {
    let ran = 0;
    const runner = client.chat.completions.runTools({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tool_choice: 'required',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: WEATHER.type === 'function' ? (WEATHER.function.parameters as never) : ({} as never),
            parse: (text: string) => JSON.parse(text) as { city: string },
            function: (args: { city: string }) => {
              ran++;
              return { city: args.city, temperature: 21 };
            },
          },
        },
      ],
    });
    const content = await runner.finalContent();
    assert.equal(ran, 1);
    assert.ok((content ?? '').length > 0);
  });

  it('an invalid tool list is a 400 naming the field the client sent', async () => {
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [WEATHER, WEATHER],
      }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'tools[1].function.name',
    );
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [WEATHER],
        tool_choice: { type: 'function', function: { name: 'nope' } },
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && error.param === 'tool_choice.function.name',
    );
  });

  it('a tool loop with the Vercel AI SDK: generateText and streamText', async () => {
    const gateway = createOpenAICompatible({
      name: 'gateway',
      baseURL,
      apiKey: `${APP}:${SECRET}`,
      includeUsage: true,
    });
    let ran = 0;
    const tools = {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string; unit: string }>(
          WEATHER.type === 'function' ? (WEATHER.function.parameters as never) : ({} as never),
        ),
        execute: async ({ city }) => {
          ran++;
          return { city, temperature: 21 };
        },
      }),
    };
    const result = await generateText({
      model: gateway('gpt-4o-mini'),
      prompt: 'Weather in Lyon?',
      tools,
      // The first step must call the tool; after its result the model may answer.
      prepareStep: ({ stepNumber }) => ({
        toolChoice: stepNumber === 0 ? ('required' as const) : ('auto' as const),
      }),
      stopWhen: stepCountIs(4),
      maxRetries: 0,
    });
    assert.equal(ran, 1);
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0]?.finishReason, 'tool-calls');
    assert.equal(result.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
    assert.equal(result.finishReason, 'stop');
    assert.ok(result.text.length > 0);

    const streamed = streamText({
      model: gateway('gpt-4o-mini'),
      prompt: 'Weather in Paris?',
      tools,
      // The first step must call the tool; after its result the model may answer.
      prepareStep: ({ stepNumber }) => ({
        toolChoice: stepNumber === 0 ? ('required' as const) : ('auto' as const),
      }),
      stopWhen: stepCountIs(4),
      maxRetries: 0,
    });
    assert.ok((await streamed.text).length > 0);
    assert.equal((await streamed.steps).length, 2);
    assert.equal(ran, 2);
  });
});
