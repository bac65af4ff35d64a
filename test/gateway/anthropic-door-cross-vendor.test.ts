import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * The Anthropic door in front of other vendors: a request in Anthropic's shape is served by an
 * OpenAI slot and by a Gemini slot (the strict vendor mocks, replaying recorded answers), and
 * comes back in Anthropic's shape with the usage exactly as that upstream reported it.
 */

const question = { role: 'user' as const, content: 'What is the capital of France?' };

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The current weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const weatherQuestion: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };

function toolUses(message: Anthropic.Message): Anthropic.ToolUseBlock[] {
  return message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
}

/** The second turn of a tool loop: the first answer, then the tool's result for its one call. */
function answerTurn(first: Anthropic.Message, result: string): Anthropic.MessageParam[] {
  const [use] = toolUses(first);
  assert.ok(use !== undefined);
  return [
    weatherQuestion,
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: result }] },
  ];
}

describe('Anthropic door → OpenAI slot (strict mock)', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'mock-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'mock-key' },
  }));
  after(() => mock.close());
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });

  it('answers in Anthropic shape with the recorded text and usage, and sends OpenAI its own shape', async () => {
    const answer = await client.messages.create({
      model: 'provider-a/gpt-4o-mini',
      max_tokens: 64,
      system: 'Answer in one sentence.',
      messages: [question],
      stop_sequences: ['\n\n'],
    });
    assert.deepEqual(answer.content, [
      { type: 'text', text: 'The capital of France is Paris.', citations: null },
    ]);
    assert.equal(answer.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(answer.stop_reason, 'end_turn');
    // As recorded: prompt_tokens 1250 (1024 of them cached), completion_tokens 8. Anthropic's
    // input_tokens leaves the cache reads out, as Anthropic does.
    assert.equal(answer.usage.input_tokens, 1250 - 1024);
    assert.equal(answer.usage.cache_read_input_tokens, 1024);
    assert.equal(answer.usage.cache_creation_input_tokens, 0);
    assert.equal(answer.usage.output_tokens, 8);
    const sent = mock.requests.at(-1)?.body as Record<string, unknown>;
    assert.equal(sent.model, 'gpt-4o-mini');
    assert.deepEqual(sent.stop, ['\n\n']);
    assert.equal(sent.max_completion_tokens ?? sent.max_tokens, 64);
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: question.content },
    ]);
  });

  it('streams in Anthropic events with the usage the stream reported', async () => {
    const final = await client.messages
      .stream({ model: 'provider-a/gpt-4o-mini', max_tokens: 64, messages: [question] })
      .finalMessage();
    const text = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    assert.equal(text, 'The capital of France is Paris.');
    assert.equal(final.usage.input_tokens, 1250 - 1024);
    assert.equal(final.usage.cache_read_input_tokens, 1024);
    assert.equal(final.usage.output_tokens, 8);
  });
  it('a tool loop: OpenAI tool_calls come back as tool_use blocks, tool_result goes up as a tool message', async () => {
    mock.replyNext({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const first = await client.messages.create({
      model: 'provider-a/gpt-4o-mini',
      max_tokens: 64,
      messages: [weatherQuestion],
      tools: [weatherTool],
      tool_choice: { type: 'any' },
    });
    assert.equal(first.stop_reason, 'tool_use');
    assert.deepEqual(
      toolUses(first).map(({ id, name, input }) => ({ id, name, input })),
      [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
    );
    // As the mock reports a scripted answer: 20 prompt tokens, a quarter of the output's characters.
    assert.equal(first.usage.input_tokens, 20);
    assert.equal(first.usage.output_tokens, Math.ceil('{"city":"Paris"}'.length / 4));
    const sent = mock.requests.at(-1)?.body as Record<string, unknown>;
    assert.equal(sent.tool_choice, 'required');
    assert.deepEqual(sent.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: weatherTool.description,
          parameters: weatherTool.input_schema,
        },
      },
    ]);

    mock.replyNext({ text: 'It is sunny in Paris.' });
    const second = await client.messages.create({
      model: 'provider-a/gpt-4o-mini',
      max_tokens: 64,
      messages: answerTurn(first, '18°C, sunny'),
      tools: [weatherTool],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(second.content, [{ type: 'text', text: 'It is sunny in Paris.', citations: null }]);
    const upstream = (mock.requests.at(-1)?.body as { messages: Record<string, unknown>[] } | undefined)
      ?.messages;
    assert.deepEqual(upstream?.at(-1), { role: 'tool', tool_call_id: 'call_w1', content: '18°C, sunny' });
  });

  it('a streamed tool call, assembled from OpenAI fragments, arrives as one tool_use block', async () => {
    mock.replyNext({
      toolCalls: [{ id: 'call_w2', name: 'get_weather', arguments: { city: 'Lyon' } }],
      fragmentSize: 3,
    });
    const final = await client.messages
      .stream({
        model: 'provider-a/gpt-4o-mini',
        max_tokens: 64,
        messages: [weatherQuestion],
        tools: [weatherTool],
        tool_choice: { type: 'tool', name: 'get_weather' },
      })
      .finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    assert.deepEqual(
      toolUses(final).map(({ id, input }) => ({ id, input })),
      [{ id: 'call_w2', input: { city: 'Lyon' } }],
    );
    assert.equal(final.usage.input_tokens, 20);
  });
});

describe('Anthropic door → Gemini slot (strict mock)', () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'gemini-key' },
  }));
  after(() => mock.close());
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });

  it('answers in Anthropic shape with the usage Gemini reported (thinking tokens in output_tokens)', async () => {
    const answer = await client.messages.create({
      model: 'provider-a/gemini-2.5-flash',
      max_tokens: 256,
      messages: [question],
    });
    assert.equal(answer.content[0]?.type, 'text');
    assert.match(answer.content[0]?.type === 'text' ? answer.content[0].text : '', /Paris/);
    assert.equal(answer.model, 'gemini-2.5-flash');
    // As recorded: promptTokenCount 2143, of which cachedContentTokenCount 2027; candidatesTokenCount
    // 21 + thoughtsTokenCount 427.
    assert.equal(answer.usage.input_tokens, 2143 - 2027);
    assert.equal(answer.usage.cache_read_input_tokens, 2027);
    assert.equal(answer.usage.output_tokens, 21 + 427);
    assert.match(mock.requests.at(-1)?.path ?? '', /models\/gemini-2\.5-flash:generateContent$/);
  });

  it('streams in Anthropic events with the usage of the last chunk', async () => {
    const final = await client.messages
      .stream({ model: 'provider-a/gemini-2.5-flash', max_tokens: 256, messages: [question] })
      .finalMessage();
    assert.match(final.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), /Louvre/);
    // As recorded in the stream's last chunk: promptTokenCount 9; candidates 17 + thoughts 437.
    assert.equal(final.usage.input_tokens, 9);
    assert.equal(final.usage.output_tokens, 17 + 437);
  });

  it('a tool loop: Gemini functionCall comes back as tool_use, tool_result goes up as functionResponse', async () => {
    mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const first = await client.messages.create({
      model: 'provider-a/gemini-2.5-flash',
      max_tokens: 256,
      messages: [weatherQuestion],
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    assert.equal(first.stop_reason, 'tool_use');
    const [use] = toolUses(first);
    assert.equal(use?.name, 'get_weather');
    assert.deepEqual(use?.input, { city: 'Paris' });
    assert.ok((use?.id ?? '').length > 0, 'the gateway gives a Gemini call an id');
    assert.equal(first.usage.input_tokens, 20);
    assert.equal(first.usage.output_tokens, Math.ceil('{"city":"Paris"}'.length / 4));

    mock.replyNext({ text: 'Sunny in Paris.' });
    const second = await client.messages.create({
      model: 'provider-a/gemini-2.5-flash',
      max_tokens: 256,
      messages: answerTurn(first, '18°C, sunny'),
      tools: [weatherTool],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(second.content, [{ type: 'text', text: 'Sunny in Paris.', citations: null }]);
    const sent = JSON.stringify(mock.requests.at(-1)?.body);
    assert.match(sent, /"functionResponse":\{[^}]*"name":"get_weather"/);
  });
});
