import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import OpenAI, { AuthenticationError, RateLimitError } from 'openai';
import { callContext } from '../../../../test/helpers/call-context.ts';
import {
  type MockOpenAIServer,
  openAIErrorFixture,
  openAIFixtureJson,
  startMockOpenAI,
} from '../../../../test/helpers/mock-openai-server.ts';
import { openAISettings } from '../../../../test/helpers/openai-settings.ts';
import type { ChatStreamEvent } from '../provider.ts';
import { OpenAIProvider } from './openai-provider.ts';

/**
 * The official SDK, pointed at the mock, must read its answers as it reads OpenAI's: this keeps
 * the mock (and so the adapter tests built on it) faithful to the real wire format. The adapter
 * must then read the same responses to the same values.
 */
describe('the official openai SDK against the mock server', () => {
  let mock: MockOpenAIServer;
  let client: OpenAI;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'k' });
    client = new OpenAI({ apiKey: 'k', baseURL: mock.baseUrl, maxRetries: 0 });
  });
  after(() => mock.close());
  afterEach(() => mock.reset());

  const messages = [{ role: 'user' as const, content: 'Capital of France?' }];
  const floatVectors = (
    openAIFixtureJson('embeddings-float.json') as { data: { embedding: number[] }[] }
  ).data.map((item) => item.embedding);

  it('parses a plain chat completion, and the adapter reads the same values', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(completion.choices[0]?.message.content, 'The capital of France is Paris.');
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 1024);

    const provider = new OpenAIProvider(openAISettings(mock.baseUrl, 'k'));
    try {
      const result = await provider.chat({ model: 'gpt-4o-mini', messages }, callContext());
      assert.equal(result.content, completion.choices[0]?.message.content);
      assert.equal(result.model, completion.model);
      assert.equal(result.usage?.inputTokens, completion.usage?.prompt_tokens);
      assert.equal(result.usage?.outputTokens, completion.usage?.completion_tokens);
      // Both clients sent the same request line and credentials.
      const [sdkRequest, adapterRequest] = mock.requests;
      assert.equal(adapterRequest?.path, sdkRequest?.path);
      assert.equal(adapterRequest?.headers.authorization, sdkRequest?.headers.authorization);
    } finally {
      await provider.close();
    }
  });

  it('parses a stream with include_usage: deltas, finish, then a usage chunk with empty choices', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let usageChoices: number | undefined;
    for await (const chunk of stream) {
      assert.equal(chunk.object, 'chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      const finish = chunk.choices[0]?.finish_reason;
      if (finish) finishes.push(finish);
      if (chunk.usage) {
        usage = chunk.usage;
        usageChoices = chunk.choices.length;
      }
    }
    assert.equal(text, 'The capital of France is Paris.');
    assert.deepEqual(finishes, ['stop']);
    assert.equal(usage?.prompt_tokens, 1250);
    assert.equal(usage?.completion_tokens, 8);
    assert.equal(usageChoices, 0);

    const provider = new OpenAIProvider(openAISettings(mock.baseUrl, 'k'));
    try {
      const events: ChatStreamEvent[] = [];
      for await (const event of provider.streamChat({ model: 'gpt-4o-mini', messages }, callContext())) {
        events.push(event);
      }
      const adapterText = events.flatMap((event) => (event.type === 'delta' ? [event.content] : [])).join('');
      assert.equal(adapterText, text);
      const adapterUsage = events.find((event) => event.type === 'usage');
      assert.equal(adapterUsage?.type === 'usage' && adapterUsage.usage.inputTokens, usage?.prompt_tokens);
      // The adapter asked for exactly what the SDK caller asked for.
      assert.deepEqual(mock.requests[1]?.body, { ...(mock.requests[0]?.body as object), messages });
    } finally {
      await provider.close();
    }
  });

  it('sends no usage chunk when include_usage was not asked for, as OpenAI does', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    let usageChunks = 0;
    let text = '';
    for await (const chunk of stream) {
      if (chunk.usage) usageChunks++;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(usageChunks, 0);
    assert.equal(text, 'The capital of France is Paris.');
  });

  it("decodes the mock's base64 embeddings (the SDK's default) to the recorded floats", async () => {
    const response = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    assert.equal(
      (mock.requests[0]?.body as { encoding_format?: string } | undefined)?.encoding_format,
      'base64',
    );
    assert.deepEqual(
      response.data.map((item) => item.embedding),
      floatVectors,
    );
    assert.deepEqual(
      response.data.map((item) => item.index),
      [0, 1],
    );
    assert.equal(response.usage.prompt_tokens, 2);
  });

  it('gets float arrays when it asks for them', async () => {
    const response = await client.embeddings.create({ model: 'm', input: 'a', encoding_format: 'float' });
    assert.deepEqual(response.data[0]?.embedding, floatVectors[0]);
  });

  it('reads the recorded error bodies as the API errors they are', async () => {
    mock.failNext(1, openAIErrorFixture('error-429-rate-limit.json'));
    await assert.rejects(client.chat.completions.create({ model: 'm', messages }), (error: unknown) => {
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.code, 'rate_limit_exceeded');
      assert.equal(error.type, 'requests');
      assert.equal(error.headers.get('retry-after-ms'), '1250');
      return true;
    });
    mock.failNext(1, openAIErrorFixture('error-429-insufficient-quota.json'));
    await assert.rejects(
      client.embeddings.create({ model: 'm', input: 'a' }),
      (error: unknown) => error instanceof RateLimitError && error.code === 'insufficient_quota',
    );
    const wrongKey = new OpenAI({ apiKey: 'wrong', baseURL: mock.baseUrl, maxRetries: 0 });
    await assert.rejects(
      wrongKey.chat.completions.create({ model: 'm', messages }),
      (error: unknown) => error instanceof AuthenticationError && error.code === 'invalid_api_key',
    );
  });
});

describe('the official openai SDK against the mock: tool calls', () => {
  let mock: MockOpenAIServer;
  let client: OpenAI;
  before(async () => {
    mock = await startMockOpenAI();
    client = new OpenAI({ apiKey: 'k', baseURL: mock.baseUrl, maxRetries: 0 });
  });
  after(() => mock.close());
  afterEach(() => mock.reset());

  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ];
  const messages = [{ role: 'user' as const, content: 'Weather in Paris and Rome?' }];
  const script = {
    toolCalls: [
      { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_2', name: 'get_weather', arguments: { city: 'Rome' } },
    ],
    fragmentSize: 4,
  };
  const expected = [
    { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
  ];

  it('a scripted completion with parallel calls parses as tool_calls; the adapter reads the same calls', async () => {
    mock.replyNext(script);
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
    const message = completion.choices[0]?.message;
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(message?.content, null);
    assert.deepEqual(message?.tool_calls, expected);
    mock.replyNext(script);
    const provider = new OpenAIProvider(openAISettings(mock.baseUrl, 'k'));
    try {
      const result = await provider.chat(
        { model: 'gpt-4o-mini', messages, tools: [{ name: 'get_weather', parameters: {} }] },
        callContext(),
      );
      assert.deepEqual(
        result.toolCalls,
        expected.map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
      );
    } finally {
      await provider.close();
    }
  });

  it("the SDK's stream helper assembles the interleaved fragments into the same calls", async () => {
    mock.replyNext(script);
    const final = await client.chat.completions
      .stream({ model: 'gpt-4o-mini', messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(
      final.choices[0]?.message.tool_calls?.map(({ id, type, function: fn }) => ({
        id,
        type,
        function: { name: fn.name, arguments: fn.arguments },
      })),
      expected,
    );
  });

  it('a tool message answering no call is a BadRequestError naming the message, as from OpenAI', async () => {
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        tools,
        messages: [...messages, { role: 'tool', tool_call_id: 'call_x', content: 'x' }],
      }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.param === 'messages.[1].role',
    );
    // The whole loop the SDK would send is accepted.
    mock.replyNext({ text: 'Sunny.' });
    const answer = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [
        ...messages,
        { role: 'assistant', content: null, tool_calls: expected as OpenAI.ChatCompletionMessageToolCall[] },
        { role: 'tool', tool_call_id: 'call_1', content: '12' },
        { role: 'tool', tool_call_id: 'call_2', content: '18' },
      ],
    });
    assert.equal(answer.choices[0]?.message.content, 'Sunny.');
  });
});
