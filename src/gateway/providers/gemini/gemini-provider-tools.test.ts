import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MockGeminiServer } from '../../../../test/helpers/mock-gemini-server.ts';
import type { SettingsOfKind } from '../../../config/config-types.ts';
import type { CallContext, ChatCall, ChatMessage, ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { GeminiProvider } from './gemini-provider.ts';

function settings(baseUrl: string): SettingsOfKind<'gemini'> {
  return {
    slot: 'provider-c',
    kind: 'gemini',
    baseUrl,
    apiKey: 'AIzaSy-test',
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    models: [],
    defaultMaxTokens: 1024,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, totalMs: 10_000 },
  };
}

const context = (): CallContext => ({
  signal: new AbortController().signal,
  requestId: 'req-7',
  attempt: 0,
  metadata: undefined,
});

const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const question: ChatMessage = { role: 'user', content: 'Weather in Paris and Rome?' };

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('GeminiProvider tool calling against the strict mock', () => {
  let mock: MockGeminiServer;
  let provider: GeminiProvider;
  before(async () => {
    mock = await MockGeminiServer.start({ streamEventDelayMs: 0 });
    provider = new GeminiProvider(settings(mock.origin));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  afterEach(() => mock.reset());

  const first: ChatCall = {
    model: 'gemini-2.5-flash',
    tools: [weather],
    toolChoice: 'required',
    messages: [question],
  };
  const script = {
    toolCalls: [
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_weather', arguments: { city: 'Rome' } },
    ],
  };

  it('a two-step loop: id-less calls get deterministic ids, results go back as named functionResponse parts', async () => {
    mock.replyNext(script);
    mock.replyNext({ text: 'Paris 12°C, Rome 18°C.' });
    const step1 = await provider.chat(first, context());
    assert.deepEqual(step1.toolCalls, [
      { id: 'call_scriptedResponse1_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_scriptedResponse1_1', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    assert.equal(step1.finishReason, 'tool_calls');
    assert.deepEqual(mock.requests[0]?.body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
    const step2 = await provider.chat(
      {
        ...first,
        messages: [
          question,
          { role: 'assistant', content: step1.content, toolCalls: step1.toolCalls },
          { role: 'tool', toolCallId: 'call_scriptedResponse1_0', content: '{"temp":12}' },
          { role: 'tool', toolCallId: 'call_scriptedResponse1_1', content: '18 degrees' },
        ],
      },
      context(),
    );
    assert.equal(step2.content, 'Paris 12°C, Rome 18°C.');
    assert.equal(step2.finishReason, 'stop');
    assert.deepEqual(mock.requests[1]?.body.contents.at(-1).parts, [
      { functionResponse: { id: 'call_scriptedResponse1_0', name: 'get_weather', response: { temp: 12 } } },
      {
        functionResponse: {
          id: 'call_scriptedResponse1_1',
          name: 'get_weather',
          response: { result: '18 degrees' },
        },
      },
    ]);
  });

  it('streams whole calls as they arrive, then finish tool_calls', async () => {
    mock.replyNext({ text: 'Checking.', ...script });
    const events = await drain(provider.streamChat(first, context()));
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_call' || event.type === 'finish'),
      [
        {
          type: 'tool_call',
          call: { id: 'call_scriptedResponse1_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
        {
          type: 'tool_call',
          call: { id: 'call_scriptedResponse1_1', name: 'get_weather', arguments: '{"city":"Rome"}' },
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    );
  });

  it('a gemini-3 conversation replays calls with a thought signature, which the strict mock demands', async () => {
    mock.replyNext({ text: 'Done.' });
    const result = await provider.chat(
      {
        model: 'gemini-3-flash',
        tools: [weather],
        messages: [
          question,
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c1', content: '{}' },
        ],
      },
      context(),
    );
    assert.equal(result.content, 'Done.');
  });

  it('the mock refuses a response turn that answers fewer calls than were made, and the adapter reports it', async () => {
    await assert.rejects(
      provider.chat(
        {
          ...first,
          messages: [
            question,
            {
              role: 'assistant',
              content: '',
              toolCalls: [
                { id: 'a', name: 'get_weather', arguments: '{}' },
                { id: 'b', name: 'get_weather', arguments: '{}' },
              ],
            },
            { role: 'tool', toolCallId: 'a', content: '{}' },
          ],
        },
        context(),
      ),
      (e: unknown) => e instanceof ProviderError && e.status === 400,
    );
  });
});
