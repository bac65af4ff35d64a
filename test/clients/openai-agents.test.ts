import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OFF_THREAD_BYTES } from '../../src/platform/json-thread/json-thread.ts';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { skipUnlessLibraryInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { runOpenAIAgent } from '../helpers/run-openai-agent.ts';

/**
 * The OpenAI Agents SDK (test/clients) with its default settings, which use the Responses API: a
 * function tool round trip against the recording OpenAI mock, plain and streamed; through the
 * gateway's Responses door (issue 29) on an OpenAI and an Anthropic slot, the same round trip,
 * plain and streamed.
 */

const skip = skipUnlessLibraryInstalled('@openai/agents');
const weatherCall = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('OpenAI Agents SDK against the recording Responses mock', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(() => mock.close());

  for (const stream of [false, true]) {
    it(`completes a function tool round trip${stream ? ', streamed' : ''}`, async () => {
      mock.reset();
      mock.replyNext({ toolCalls: [weatherCall] });
      mock.replyNext({ text: 'It is sunny in Paris.' });
      const run = await runOpenAIAgent({
        baseUrl: mock.baseUrl,
        apiKey: 'sk-agents',
        prompt: 'Weather in Paris?',
        stream,
      });
      assert.equal(run.finalOutput, 'It is sunny in Paris.');
      assert.deepEqual(run.toolCalls, [{ city: 'Paris' }]);
      assert.deepEqual(
        mock.requests.map((request) => request.path),
        ['/v1/responses', '/v1/responses'],
      );
      const second = mock.requests[1]?.body as { input: any[]; stream?: boolean };
      assert.equal(second.stream ?? false, stream);
      const output = second.input.find((item) => item.type === 'function_call_output');
      const call = second.input.find((item) => item.type === 'function_call');
      assert.equal(output?.call_id, call?.call_id);
      assert.equal(output?.output, 'sunny');
    });
  }
});

describe('OpenAI Agents SDK through the gateway', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'sk-upstream' },
  }));
  after(() => mock.close());

  for (const stream of [false, true]) {
    it(`completes a function tool round trip${stream ? ', streamed' : ''}`, async () => {
      mock.reset();
      mock.replyNext({ toolCalls: [weatherCall] });
      mock.replyNext({ text: 'It is sunny in Paris.' });
      const origin = await listenForClients(gw);
      const run = await runOpenAIAgent({
        baseUrl: `${origin}/v1`,
        apiKey: `${APP}:${SECRET}`,
        prompt: 'Weather in Paris?',
        stream,
      });
      assert.equal(run.finalOutput, 'It is sunny in Paris.');
      assert.deepEqual(run.toolCalls, [{ city: 'Paris' }]);
      // Upstream, the Chat Completions wire: the instructions as the system message, the call and
      // its output as an assistant message with tool_calls and a tool message.
      const second = mock.requests[1]?.body as { messages: any[]; stream?: boolean };
      assert.equal(mock.requests[1]?.path, '/v1/chat/completions');
      assert.deepEqual(second.messages[0], { role: 'system', content: 'Answer about the weather.' });
      const result = second.messages.find((message) => message.role === 'tool');
      assert.equal(result?.content, 'sunny');
      assert.equal(result?.tool_call_id, second.messages.at(-2)?.tool_calls?.[0]?.id);
    });
  }

  it('a prompt of hundreds of kilobytes (read and written on the JSON thread) reaches the upstream whole', async () => {
    mock.reset();
    mock.replyNext({ text: 'Read it.' });
    const origin = await listenForClients(gw);
    const prompt = Array.from(
      { length: 6_000 },
      (_, i) => `Line ${i}: “notes”, café, 日本, a \\ and a "quote".`,
    ).join('\n');
    assert.ok(Buffer.byteLength(prompt) > OFF_THREAD_BYTES);
    const run = await runOpenAIAgent({
      baseUrl: `${origin}/v1`,
      apiKey: `${APP}:${SECRET}`,
      prompt,
      stream: false,
    });
    assert.equal(run.finalOutput, 'Read it.');
    const upstream = mock.requests[0];
    assert.ok(upstream !== undefined && upstream.raw.length > OFF_THREAD_BYTES);
    const user = (upstream.body as { messages: { role: string; content: unknown }[] }).messages.find(
      (message) => message.role === 'user',
    );
    assert.equal(user?.content, prompt);
  });
});

describe('OpenAI Agents SDK through the gateway, on an Anthropic slot', { skip }, () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic();
  });
  // The SDK's default model name is placed by no route or slot: the default route, the Anthropic slot.
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'sk-ant' },
  }));
  after(() => mock.close());

  for (const stream of [false, true]) {
    it(`completes a function tool round trip${stream ? ', streamed' : ''}`, async () => {
      const before = mock.requests.length;
      mock.replyNext({ toolCalls: [weatherCall] });
      mock.replyNext({ text: 'It is sunny in Paris.' });
      const origin = await listenForClients(gw);
      const run = await runOpenAIAgent({
        baseUrl: `${origin}/v1`,
        apiKey: `${APP}:${SECRET}`,
        prompt: 'Weather in Paris?',
        stream,
      });
      assert.equal(run.finalOutput, 'It is sunny in Paris.');
      assert.deepEqual(run.toolCalls, [{ city: 'Paris' }]);
      const second = mock.requests[before + 1]?.body as { system?: unknown; messages: any[] };
      assert.equal(second.system, 'Answer about the weather.');
      const result = second.messages.at(-1)?.content?.[0];
      assert.equal(result?.type, 'tool_result');
      assert.equal(result?.content, 'sunny');
    });
  }
});
