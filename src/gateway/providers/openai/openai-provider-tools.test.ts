import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { callContext } from '../../../../test/helpers/call-context.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../../../../test/helpers/mock-openai-server.ts';
import { openAISettings } from '../../../../test/helpers/openai-settings.ts';
import type { ChatCall, ChatMessage, ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { OpenAIProvider } from './openai-provider.ts';

const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const question: ChatMessage = { role: 'user', content: 'Weather in Paris and Rome?' };
const calls = [
  { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { id: 'call_r', name: 'get_weather', arguments: '{"city":"Rome","unit":"celsius"}' },
];

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('OpenAIProvider tool calling against the strict mock', () => {
  let mock: MockOpenAIServer;
  let provider: OpenAIProvider;
  before(async () => {
    mock = await startMockOpenAI();
    provider = new OpenAIProvider(openAISettings(mock.baseUrl, 'k'));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  afterEach(() => mock.reset());

  const first: ChatCall = {
    model: 'gpt-4o-mini',
    tools: [weather],
    toolChoice: 'auto',
    messages: [question],
  };

  it('a two-step loop: parallel calls, then the results sent back as role tool', async () => {
    mock.replyNext({ toolCalls: calls });
    mock.replyNext({ text: 'Paris 12°C, Rome 18°C.' });
    const step1 = await provider.chat(first, callContext());
    assert.deepEqual(step1.toolCalls, calls);
    assert.equal(step1.finishReason, 'tool_calls');
    const step2 = await provider.chat(
      {
        ...first,
        messages: [
          question,
          { role: 'assistant', content: step1.content, toolCalls: step1.toolCalls },
          { role: 'tool', toolCallId: 'call_p', content: '{"temp":12}' },
          { role: 'tool', toolCallId: 'call_r', content: '{"temp":18}' },
        ],
      },
      callContext(),
    );
    assert.equal(step2.content, 'Paris 12°C, Rome 18°C.');
    assert.equal(step2.finishReason, 'stop');
    const sent = mock.requests[1]?.body as { messages: Record<string, unknown>[] };
    assert.deepEqual(
      sent.messages.map((message) => [message['role'], message['tool_call_id'] ?? null]),
      [
        ['user', null],
        ['assistant', null],
        ['tool', 'call_p'],
        ['tool', 'call_r'],
      ],
    );
  });

  it('streams parallel calls split into 3-character fragments and assembles each once', async () => {
    mock.replyNext({ text: 'Checking.', toolCalls: calls, fragmentSize: 3 });
    const events = await drain(provider.streamChat(first, callContext()));
    assert.deepEqual(
      events.filter((event) => event.type !== 'usage' && event.type !== 'model'),
      [
        { type: 'delta', content: 'Che' },
        { type: 'delta', content: 'cki' },
        { type: 'delta', content: 'ng.' },
        { type: 'tool_call', call: calls[0] },
        { type: 'tool_call', call: calls[1] },
        { type: 'finish', reason: 'tool_calls' },
      ],
    );
  });

  it('the mock refuses a tool result answering no call, as OpenAI does, and the adapter reports it', async () => {
    await assert.rejects(
      provider.chat(
        { ...first, messages: [question, { role: 'tool', toolCallId: 'call_nobody', content: 'x' }] },
        callContext(),
      ),
      (e: unknown) => e instanceof ProviderError && e.status === 400,
    );
    await assert.rejects(
      provider.chat(
        { ...first, messages: [question, { role: 'assistant', content: '', toolCalls: calls }, question] },
        callContext(),
      ),
      (e: unknown) => e instanceof ProviderError && e.status === 400,
    );
  });

  it('a tool message without toolCallId is still accepted as a labelled user message', async () => {
    const result = await provider.chat(
      { model: 'gpt-4o-mini', messages: [question, { role: 'tool', content: '12', name: 'lookup' }] },
      callContext(),
    );
    assert.equal(result.finishReason, 'stop');
  });
});
