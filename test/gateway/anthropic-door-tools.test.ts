import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';

const MODEL = 'simulated-chat';
const question: Anthropic.MessageParam = {
  role: 'user',
  content: 'What is the weather in Paris, and the time?',
};
const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'The current weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'The local time in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

function toolUses(message: Anthropic.Message): Anthropic.ToolUseBlock[] {
  return message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
}

describe('the Anthropic door: tool calling with @anthropic-ai/sdk on the simulated provider', () => {
  const gw = shareGateway();
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });

  it('a two-step tool loop: a forced tool_use, then the tool_result answered in text', async () => {
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      tools,
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    assert.equal(first.stop_reason, 'tool_use');
    const [use] = toolUses(first);
    assert.equal(use?.name, 'get_weather');
    assert.ok(
      use !== undefined && typeof (use.input as { city?: unknown }).city === 'string',
      JSON.stringify(use),
    );

    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C and sunny' }] },
      ],
      tools,
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(toolUses(second), []);
    assert.equal(second.content[0]?.type, 'text');
  });

  it('streams a tool_use block: the stream helper parses the same input the plain call answers', async () => {
    const body = {
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      tools,
      tool_choice: { type: 'tool' as const, name: 'get_time' },
    };
    const whole = await client.messages.create(body);
    const stream = client.messages.stream(body);
    const inputs: unknown[] = [];
    stream.on('contentBlock', (block) => {
      if (block.type === 'tool_use') inputs.push(block.input);
    });
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    assert.deepEqual(
      toolUses(final).map(({ name, input }) => ({ name, input })),
      toolUses(whole).map(({ name, input }) => ({ name, input })),
    );
    assert.deepEqual(inputs, [toolUses(whole)[0]?.input]);
  });

  it('parallel calls come as several tool_use blocks; disable_parallel_tool_use keeps the first', async () => {
    const body = {
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      tools,
      metadata: { simulated: { toolCall: ['get_weather', 'get_time'] } },
    };
    const parallel = await client.messages.create(body as never);
    assert.deepEqual(
      toolUses(parallel).map((use) => use.name),
      ['get_weather', 'get_time'],
    );
    const single = await client.messages.create({
      ...body,
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    } as never);
    assert.deepEqual(
      toolUses(single).map((use) => use.name),
      ['get_weather'],
    );
    const streamed = await client.messages
      .stream({ ...body, tool_choice: { type: 'auto', disable_parallel_tool_use: true } } as never)
      .finalMessage();
    assert.deepEqual(
      toolUses(streamed).map((use) => use.name),
      ['get_weather'],
    );
  });

  it('tool_choice any makes the model call a tool; none forbids it', async () => {
    const any = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      tools,
      tool_choice: { type: 'any' },
    });
    assert.equal(toolUses(any).length > 0, true);
    const none = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      tools,
      tool_choice: { type: 'none' },
      metadata: { simulated: { toolCall: 'get_weather' } },
    } as never);
    assert.deepEqual(toolUses(none), []);
  });

  it('an invalid input_schema is a 400 naming tools.N.input_schema', async () => {
    try {
      await client.messages.create({
        model: MODEL,
        max_tokens: 20,
        messages: [question],
        tools: [
          { name: 'bad', input_schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
        ],
      });
      assert.fail('expected a 400');
    } catch (error) {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.match((error.error as { error: { message: string } }).error.message, /^tools\.0\.input_schema/);
    }
  });

  it('max_tokens that cuts the answer is stop_reason max_tokens', async () => {
    const cut = await client.messages.create({ model: MODEL, max_tokens: 3, messages: [question] });
    assert.equal(cut.usage.output_tokens, 3);
    assert.equal(cut.stop_reason, 'max_tokens');
  });
});
