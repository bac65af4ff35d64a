import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';

/**
 * A tool loop through each front door on a Gemini 3 slot, driven by the vendors' own SDKs, against
 * the strict Gemini mock: it signs the first call of each answer, as Gemini 3 does, and refuses the
 * next request when a current-turn call comes back without a signature or with one it did not
 * issue. The clients know nothing of Gemini; they echo the call ids, which is all it takes for the
 * signature to come back on the call it was issued with.
 */

const MODEL = 'provider-a/gemini-3-pro-preview';
const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The model turns of a recorded request, each as the signatures of its functionCall parts. */
function callSignatures(body: any): (string | null)[][] {
  return body.contents
    .filter((content: any) => content.role === 'model')
    .map((content: any) =>
      content.parts
        .filter((part: any) => part.functionCall !== undefined)
        .map((part: any) => part.thoughtSignature ?? null),
    );
}

describe('Gemini 3 thought signatures through the front doors (strict mock)', () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'gemini-key' },
  }));
  after(() => mock.close());
  afterEach(() => mock.reset());
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    const origin = await listenForClients(gw);
    openai = new OpenAI({ baseURL: `${origin}/v1`, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
    anthropic = anthropicClient(origin);
  });

  it('OpenAI SDK: parallel calls, their results, then the answer; the first call has its signature back', async () => {
    mock.replyNext({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Rome?' }];
    const first = await openai.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    const calls = (first.choices[0]?.message.tool_calls ?? []) as ChatCompletionMessageFunctionToolCall[];
    assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(calls.length, 2);
    messages.push(
      first.choices[0]?.message as ChatCompletionMessageParam,
      ...calls.map(
        (call): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: call.id, content: '18' }),
      ),
    );

    mock.replyNext({ text: 'Sunny in both.' });
    const second = await openai.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    assert.equal(second.choices[0]?.message.content, 'Sunny in both.');
    assert.deepEqual(callSignatures(mock.requests[1]?.body), [[mock.issuedSignatures[0], null]]);
  });

  it('OpenAI SDK, streamed: the call id in the stream carries the signature just the same', async () => {
    mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages,
      tools: [WEATHER],
      stream: true,
    });
    let id = '';
    let args = '';
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        id += call.id ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    messages.push(
      {
        role: 'assistant',
        tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: args } }],
      },
      { role: 'tool', tool_call_id: id, content: '18' },
    );
    mock.replyNext({ text: 'Sunny.' });
    const second = await openai.chat.completions.create({
      model: MODEL,
      messages,
      tools: [WEATHER],
      stream: true,
    });
    let text = '';
    for await (const chunk of second) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Sunny.');
    assert.deepEqual(callSignatures(mock.requests[1]?.body), [[mock.issuedSignatures[0]]]);
  });

  it('Anthropic SDK: tool_use, tool_result, then the answer; the call has its signature back', async () => {
    mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [question],
      tools: [weatherTool],
    });
    const use = first.content.find((block) => block.type === 'tool_use');
    assert.equal(first.stop_reason, 'tool_use');
    assert.ok(use !== undefined);
    assert.match(use.id, /^[a-zA-Z0-9_-]+$/, "Anthropic's own pattern for tool_use ids");

    mock.replyNext({ text: 'Sunny in Paris.' });
    const second = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C, sunny' }] },
      ],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(callSignatures(mock.requests[1]?.body), [[mock.issuedSignatures[0]]]);
  });

  it('Anthropic SDK, streamed: the tool_use id of the stream carries the signature', async () => {
    mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await anthropic.messages
      .stream({ model: MODEL, max_tokens: 256, messages: [question], tools: [weatherTool] })
      .finalMessage();
    const use = first.content.find((block) => block.type === 'tool_use');
    assert.ok(use !== undefined);
    mock.replyNext({ text: 'Sunny.' });
    const second = await anthropic.messages
      .stream({
        model: MODEL,
        max_tokens: 256,
        tools: [weatherTool],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18' }] },
        ],
      })
      .finalMessage();
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(callSignatures(mock.requests[1]?.body), [[mock.issuedSignatures[0]]]);
  });

  it('a client id that looks like a signed one but is not goes through with the documented stand-in', async () => {
    const lookalike = `gsig1_${Buffer.from('not a signed id at all, made up').toString('base64url')}`;
    mock.replyNext({ text: 'Fine.' });
    const answer = await openai.chat.completions.create({
      model: MODEL,
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: lookalike, type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: lookalike, content: '18' },
      ],
    });
    assert.equal(answer.choices[0]?.message.content, 'Fine.');
    const model = mock.requests[0]?.body.contents[1];
    assert.deepEqual(model.parts, [
      {
        functionCall: { id: lookalike, name: 'get_weather', args: {} },
        thoughtSignature: 'skip_thought_signature_validator',
      },
    ]);

    mock.replyNext({ text: 'Fine.' });
    const native = await gw.chat({
      model: MODEL,
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: `${lookalike}A`, name: 'get_weather', arguments: '{}' }],
        },
        { role: 'tool', toolCallId: `${lookalike}A`, content: '18' },
      ],
    });
    assert.equal(native.status, 200, native.text);
    assert.equal(native.body.message.content, 'Fine.');
  });

  it('an id past the 96 KiB bound is a 400 naming it in each door, not a 500', async () => {
    const long = 'x'.repeat(96 * 1024 + 1);
    const native = await gw.chat({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', toolCalls: [{ id: long, name: 'get_weather', arguments: '{}' }] },
      ],
    });
    assert.equal(native.status, 400, native.text);
    await assert.rejects(
      openai.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'tool', tool_call_id: long, content: '18' },
        ],
      }),
      (e: unknown) => e instanceof OpenAI.BadRequestError,
    );
    await assert.rejects(
      anthropic.messages.create({
        model: MODEL,
        max_tokens: 16,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'get_weather', input: {} }] },
        ],
      }),
      (e: unknown) =>
        e instanceof Error && 'status' in e && e.status === 400 && /tool_use|id/.test(e.message),
    );
    assert.equal(mock.requests.length, 0);
  });
});
