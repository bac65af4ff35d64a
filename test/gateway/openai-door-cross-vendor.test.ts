import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';

/**
 * An OpenAI-shaped request served by an Anthropic slot, against the strict Anthropic mock (it
 * refuses a request without max_tokens, anthropic-version or a key): the answer comes back in
 * OpenAI's shape with the usage exactly as Anthropic reported it. The fixtures report 21 input
 * tokens, 1024 written to and 2048 read from the cache, and 12 output tokens; OpenAI's
 * prompt_tokens counts cached input, so it is their sum.
 */
const PROMPT_TOKENS = 21 + 1024 + 2048;
const COMPLETION_TOKENS = 12;

describe('OpenAI door to an Anthropic slot', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic();
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'mock-key' },
  }));
  after(() => mock.close());
  let client: OpenAI;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`,
      apiKey: `${APP}:${SECRET}`,
      maxRetries: 0,
    });
  });

  it("a chat completion in OpenAI's shape, with Anthropic's usage and model", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is the capital of France?' },
        ],
        max_tokens: 64,
        stop: ['\n\n'],
      })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.model, 'claude-sonnet-4-5-20250929');
    assert.equal(data.choices[0]?.message.content, 'Paris is the capital of France.');
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.deepEqual(data.usage, {
      prompt_tokens: PROMPT_TOKENS,
      completion_tokens: COMPLETION_TOKENS,
      total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS,
      // OpenAI's field for cache reads; it has none for writes, which stay in prompt_tokens.
      prompt_tokens_details: { cached_tokens: 2048 },
    });
    assert.ok(Number(response.headers.get('x-gateway-cost-usd')) > 0);
    const sent = mock.requests.at(-1)?.body;
    assert.deepEqual(sent.stop_sequences, ['\n\n']);
    assert.equal(sent.system, 'Be brief.');
    assert.equal(sent.max_tokens, 64);
    assert.deepEqual(sent.messages, [{ role: 'user', content: 'What is the capital of France?' }]);
    // The ledger row: the door it came by, and the usage as reported.
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
    const row = rows.find((r) => r.id === data.id);
    assert.equal(row?.frontDoor, 'openai');
    assert.equal(row?.provider, 'provider-a');
    assert.deepEqual([row?.tokensIn, row?.tokensOut], [PROMPT_TOKENS, COMPLETION_TOKENS]);
    assert.deepEqual(
      [row?.cacheReadTokens, row?.cacheWrite5mTokens, row?.cacheWrite1hTokens],
      [2048, 1024, 0],
    );
  });

  it('a stream with the usage Anthropic reported in the usage chunk, and the cost', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: (OpenAI.CompletionUsage & { cost_usd?: number }) | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(text.length > 0);
    assert.equal(finish, 'stop');
    assert.equal(usage?.prompt_tokens, PROMPT_TOKENS);
    assert.equal(usage?.completion_tokens, COMPLETION_TOKENS);
    assert.ok((usage?.cost_usd ?? 0) > 0);
    assert.equal(mock.requests.at(-1)?.body.stream, true);
  });

  it("tool calls both ways: OpenAI's tools and tool_choice to Anthropic, its tool_use back as tool_calls", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'lookup_city',
          description: 'Facts about a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Tell me about Paris.' },
    ];
    const first = await client.chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages,
      tools,
      tool_choice: { type: 'function', function: { name: 'lookup_city' } },
    });
    const sent = mock.requests.at(-1)?.body;
    assert.deepEqual(sent.tool_choice, { type: 'tool', name: 'lookup_city' });
    assert.equal(sent.tools[0].name, 'lookup_city');
    assert.deepEqual(
      sent.tools[0].input_schema,
      tools[0]?.type === 'function' ? tools[0].function.parameters : {},
    );
    const choice = first.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    const call = choice?.message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assert.equal(call.id, 'toolu_01A09q90qw90lq917835lq9');
    assert.equal(call.function.name, 'lookup_city');
    assert.deepEqual(JSON.parse(call.function.arguments), {
      city: 'Paris',
      country: 'France',
      population: 2102650,
    });
    assert.deepEqual(first.usage, {
      prompt_tokens: 412,
      completion_tokens: 58,
      total_tokens: 470,
      prompt_tokens_details: { cached_tokens: 0 },
    });

    // The result goes back as Anthropic's tool_result block, answering that tool_use id.
    messages.push(choice?.message as OpenAI.Chat.ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call.id,
      content: '{"population": 2102650}',
    });
    const second = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages, tools });
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    const turns = mock.requests.at(-1)?.body.messages;
    assert.equal(turns[1].role, 'assistant');
    assert.equal(turns[1].content.at(-1).type, 'tool_use');
    assert.equal(turns[1].content.at(-1).id, call.id);
    assert.equal(turns[2].role, 'user');
    assert.equal(turns[2].content[0].type, 'tool_result');
    assert.equal(turns[2].content[0].tool_use_id, call.id);
  });

  it('a streamed tool call: input_json_delta assembled, one tool_calls delta, usage as reported', async () => {
    const stream = client.chat.completions.stream({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Tell me about Paris.' }],
      tools: [{ type: 'function', function: { name: 'lookup_city', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'lookup_city' } },
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]?.message
      .tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(call.function.name, 'lookup_city');
    assert.equal(typeof JSON.parse(call.function.arguments), 'object');
    assert.deepEqual([usage?.prompt_tokens, usage?.completion_tokens], [412, 58]);
  });
});
