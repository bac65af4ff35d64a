import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import {
  errorFixture,
  fixtureText,
  type MockAnthropicServer,
  startMockAnthropic,
} from '../../../../test/helpers/mock-anthropic-server.ts';
import { ANTHROPIC_VERSION } from './anthropic-provider.ts';

/**
 * The official SDK against the mock server: if the SDK reads the mock's fixtures, headers and
 * errors as it reads the real API's, the adapter tests that use the mock prove something.
 * SDK 1.x defaults to API version 2026-10-21 and a bearer key; it is pinned here to 2023-06-01,
 * the version whose wire format the fixtures record and the adapter sends.
 */
describe('official @anthropic-ai/sdk against the mock Messages API', () => {
  let mock: MockAnthropicServer;
  let client: Anthropic;
  before(async () => {
    mock = await startMockAnthropic();
    client = new Anthropic({
      apiKey: 'k',
      baseURL: mock.origin,
      maxRetries: 0,
      defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
    });
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.requests.length = 0;
  });

  const params = {
    model: 'claude-haiku-4-5',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'Capital of France?' }],
  };

  it('messages.create parses the recorded Message, usage with cache fields included', async () => {
    const message = await client.messages.create(params);
    assert.equal(message.type, 'message');
    assert.equal(message.model, 'claude-sonnet-4-5-20250929');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Paris is the capital of France.' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 21);
    assert.equal(message.usage.cache_read_input_tokens, 2048);
    assert.equal(message.usage.cache_creation_input_tokens, 1024);
    assert.equal(message.usage.output_tokens, 12);
    const request = mock.requests[0]!;
    assert.equal(request.path, '/v1/messages');
    assert.equal(request.headers['authorization'], 'Bearer k');
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.deepEqual(request.body, params);
  });

  it('a raw stream yields the real event order; pings are filtered as the SDK does', async () => {
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    assert.deepEqual(types, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    assert.equal(text, 'Paris is the capital of France.');
  });

  it('messages.stream().finalMessage() accumulates text and cumulative usage', async () => {
    const final = await client.messages.stream(params).finalMessage();
    assert.deepEqual(final.content, [{ type: 'text', text: 'Paris is the capital of France.' }]);
    assert.equal(final.stop_reason, 'end_turn');
    assert.equal(final.usage.output_tokens, 12);
    assert.equal(final.usage.input_tokens, 21);
    assert.equal(final.usage.cache_read_input_tokens, 2048);
  });

  it('a forced tool call: plain and streamed, input_json_delta accumulates into the tool input', async () => {
    const toolParams = {
      ...params,
      tools: [{ name: 'city_facts', input_schema: { type: 'object' as const, properties: {} } }],
      tool_choice: { type: 'tool' as const, name: 'city_facts' },
    };
    const expected = { city: 'Paris', country: 'France', population: 2102650 };
    const plain = await client.messages.create(toolParams);
    assert.equal(plain.stop_reason, 'tool_use');
    assert.deepEqual(plain.content[0]?.type === 'tool_use' && plain.content[0].input, expected);
    const streamed = await client.messages.stream(toolParams).finalMessage();
    const block = streamed.content[0];
    assert.equal(block?.type, 'tool_use');
    assert.deepEqual(block?.type === 'tool_use' && block.input, expected);
    assert.equal(streamed.usage.output_tokens, 58);
  });

  it('scripted parallel tool_use blocks: plain and streamed, the SDK reads the same inputs', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }];
    const script = {
      text: 'Checking.',
      toolCalls: [
        { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'toolu_2', name: 'get_weather', arguments: {} },
      ],
      fragmentSize: 3,
    };
    const expected = [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
    ];
    mock.replyNext(script);
    const plain = await client.messages.create({ ...params, tools });
    assert.equal(plain.stop_reason, 'tool_use');
    assert.deepEqual(plain.content, expected);
    mock.replyNext(script);
    const streamed = await client.messages.stream({ ...params, tools }).finalMessage();
    assert.equal(streamed.stop_reason, 'tool_use');
    assert.deepEqual(
      streamed.content.map((block) =>
        block.type === 'text' ? { type: block.type, text: block.text } : block,
      ),
      expected,
    );
    // The loop's next turn, as the SDK's types build it, is accepted.
    mock.replyNext({ text: 'Sunny.' });
    const next = await client.messages.create({
      ...params,
      tools,
      messages: [
        ...params.messages,
        { role: 'assistant', content: plain.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '12' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '18' },
          ],
        },
      ],
    });
    assert.deepEqual(next.content, [{ type: 'text', text: 'Sunny.' }]);
  });

  it('a tool_result without a tool_use before it is a BadRequestError, as from the API', async () => {
    await assert.rejects(
      client.messages.create({
        ...params,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x' }] },
        ],
      }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && /toolu_x/.test(e.message),
    );
  });

  it('recorded error bodies become the SDK error classes with their status and type', async () => {
    const cases: [
      string,
      abstract new (...args: any[]) => InstanceType<typeof Anthropic.APIError>,
      number,
    ][] = [
      ['error-401.json', Anthropic.AuthenticationError, 401],
      ['error-400.json', Anthropic.BadRequestError, 400],
      ['error-429.json', Anthropic.RateLimitError, 429],
      ['error-529.json', Anthropic.InternalServerError, 529],
    ];
    for (const [name, errorClass, status] of cases) {
      const fixture = errorFixture(name);
      mock.failNext(1, fixture);
      await assert.rejects(client.messages.create(params), (e: unknown) => {
        assert.ok(e instanceof errorClass, `${name} is ${errorClass.name}`);
        assert.equal(e.status, status);
        assert.equal(e.type, (fixture.body as { error: { type: string } }).error.type);
        assert.equal(e.requestID, fixture.headers?.['request-id']);
        return true;
      });
    }
    mock.failNext(1, errorFixture('error-429-spend-limit.json'));
    await assert.rejects(
      client.messages.create(params),
      (e: any) => e.errorCode === 'enforced_spend_limit_reached',
    );
  });

  it('an error event mid-stream is raised by the SDK as an overloaded_error', async () => {
    mock.failNext(1, {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      body: fixtureText('stream-overloaded.txt'),
    });
    const stream = await client.messages.create({ ...params, stream: true });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of stream) seen.push(event.type);
      })(),
      (e: any) => e instanceof Anthropic.APIError && e.type === 'overloaded_error',
    );
    assert.deepEqual(seen, ['message_start', 'content_block_start', 'content_block_delta']);
  });
});
