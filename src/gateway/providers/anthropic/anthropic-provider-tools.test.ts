import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { anthropicSettings } from '../../../../test/helpers/anthropic-settings.ts';
import { callContext } from '../../../../test/helpers/call-context.ts';
import {
  type MockAnthropicServer,
  startMockAnthropic,
} from '../../../../test/helpers/mock-anthropic-server.ts';
import type { ChatCall, ChatMessage, ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { AnthropicProvider } from './anthropic-provider.ts';

const settings = (origin: string) => anthropicSettings(origin, 'sk-ant-test', { defaultMaxTokens: 256 });

const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const question: ChatMessage = { role: 'user', content: 'Weather in Paris and Rome?' };
const calls = [
  { id: 'toolu_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { id: 'toolu_r', name: 'get_weather', arguments: '{"city":"Rome"}' },
];

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('AnthropicProvider tool calling against the strict mock', () => {
  let mock: MockAnthropicServer;
  let provider: AnthropicProvider;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
    provider = new AnthropicProvider(settings(mock.origin));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  afterEach(() => {
    mock.requests.length = 0;
  });

  const first: ChatCall = {
    model: 'claude-sonnet-4-5',
    tools: [weather],
    toolChoice: 'required',
    messages: [question],
  };

  it('a two-step loop: tool_use blocks as calls, results sent back as tool_result blocks', async () => {
    mock.replyNext({ text: 'Checking.', toolCalls: calls });
    mock.replyNext({ text: 'Paris 12°C, Rome 18°C.' });
    const step1 = await provider.chat(first, callContext());
    assert.equal(step1.content, 'Checking.');
    assert.deepEqual(step1.toolCalls, calls);
    assert.equal(step1.finishReason, 'tool_calls');
    const step2 = await provider.chat(
      {
        ...first,
        toolChoice: 'auto',
        messages: [
          question,
          { role: 'assistant', content: step1.content, toolCalls: step1.toolCalls },
          { role: 'tool', toolCallId: 'toolu_p', content: '{"temp":12}' },
          { role: 'tool', toolCallId: 'toolu_r', content: '{"temp":18}' },
        ],
      },
      callContext(),
    );
    assert.equal(step2.content, 'Paris 12°C, Rome 18°C.');
    assert.equal(step2.finishReason, 'stop');
    assert.deepEqual(mock.requests[0]?.body.tool_choice, { type: 'any' });
    assert.deepEqual(
      mock.requests[1]?.body.messages.at(-1).content.map((block: { type: string }) => block.type),
      ['tool_result', 'tool_result'],
    );
  });

  it('streams tool input as input_json_delta fragments and sends each call once, at its block end', async () => {
    mock.replyNext({ toolCalls: calls, fragmentSize: 4 });
    const events = await drain(provider.streamChat(first, callContext()));
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_call' || event.type === 'finish'),
      [
        { type: 'tool_call', call: calls[0] },
        { type: 'tool_call', call: calls[1] },
        { type: 'finish', reason: 'tool_calls' },
      ],
    );
  });

  it('the mock refuses a tool_result without its tool_use, as Anthropic does, and the adapter reports it', async () => {
    await assert.rejects(
      provider.chat(
        { ...first, messages: [question, { role: 'tool', toolCallId: 'toolu_nobody', content: 'x' }] },
        callContext(),
      ),
      (e: unknown) => e instanceof ProviderError && e.status === 400,
    );
    assert.match(JSON.stringify(mock.requests[0]?.body.messages), /toolu_nobody/);
  });
});
