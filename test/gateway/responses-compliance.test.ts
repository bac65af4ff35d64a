import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { checkResponseResource, checkResponseStream } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';
import type { ScriptedReply } from '../helpers/scripted-reply.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';

/**
 * The seven scenarios of the Open Responses compliance suite (docs/clients/open-responses-notes.md),
 * sent as its CLI sends them (`Authorization: Bearer`, the bodies it builds), on each slot kind:
 * an OpenAI, an Anthropic and a Gemini slot (the strict vendor mocks) and the simulated provider.
 * Each answer is validated against the specification's ResponseResource schema, each stream
 * event by event.
 */

interface Slot {
  name: string;
  model: string;
  env(): Record<string, string>;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Makes the next answer a call of get_weather (a mock's script, the simulated provider's directive). */
  callWeatherNext(): Record<string, unknown>;
}

function mockSlot(
  name: string,
  kind: string,
  model: string,
  start: () => Promise<{ url: string; replyNext(reply: ScriptedReply): void; close(): Promise<void> }>,
): Slot {
  let mock: Awaited<ReturnType<typeof start>> | undefined;
  return {
    name,
    model: `provider-a/${model}`,
    env: () => ({
      PROVIDER_A_KIND: kind,
      PROVIDER_A_BASE_URL: mock?.url ?? '',
      PROVIDER_A_API_KEY: 'mock-key',
    }),
    start: async () => {
      mock = await start();
    },
    close: async () => mock?.close(),
    callWeatherNext() {
      mock?.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { location: 'San Francisco, CA' } }] });
      return {};
    },
  };
}

const SLOTS: Slot[] = [
  mockSlot('OpenAI', 'openai', 'gpt-4o-mini', async () => {
    const mock: MockOpenAIServer = await startMockOpenAI({ apiKey: 'mock-key' });
    return { url: mock.baseUrl, replyNext: (r) => mock.replyNext(r), close: () => mock.close() };
  }),
  mockSlot('Anthropic', 'anthropic', 'claude-sonnet-4-5', async () => {
    const mock: MockAnthropicServer = await startMockAnthropic();
    return { url: mock.origin, replyNext: (r) => mock.replyNext(r), close: () => mock.close() };
  }),
  mockSlot('Gemini', 'gemini', 'gemini-2.5-flash', async () => {
    const mock = await MockGeminiServer.start({ apiKey: 'mock-key', streamEventDelayMs: 0 });
    return { url: mock.origin, replyNext: (r) => mock.replyNext(r), close: () => mock.close() };
  }),
  {
    name: 'simulated',
    model: 'gpt-4o-mini',
    env: () => ({}),
    start: async () => {},
    close: async () => {},
    callWeatherNext: () => ({ metadata: { simulated: { toolCall: 'get_weather' } } }),
  },
];

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state' } },
    required: ['location'],
  },
};

for (const slot of SLOTS) {
  describe(`Open Responses compliance scenarios on the ${slot.name} slot`, () => {
    before(() => slot.start());
    after(() => slot.close());
    const gw = shareGateway(() => ({ env: slot.env() }));

    const post = (body: Record<string, unknown>) =>
      gw.post(
        '/v1/responses',
        { model: slot.model, ...body },
        {
          auth: false,
          headers: { authorization: `Bearer ${APP}:${SECRET}` },
        },
      );

    it('basic-response', async () => {
      const reply = await post({
        input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }],
      });
      assertCompleted(reply.status, reply.body);
    });

    it('streaming-response', async () => {
      const reply = await post({
        input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }],
        stream: true,
      });
      const final = assertStream(reply.status, reply.text);
      assert.equal(final['status'], 'completed');
    });

    it('system-prompt', async () => {
      const reply = await post({
        input: [
          { type: 'message', role: 'system', content: 'You are a pirate. Always respond in pirate speak.' },
          { type: 'message', role: 'user', content: 'Say hello.' },
        ],
      });
      assertCompleted(reply.status, reply.body);
    });

    it('tool-calling', async () => {
      const extra = slot.callWeatherNext();
      const reply = await post({
        input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
        tools: [weatherTool],
        ...extra,
      });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(checkResponseResource(reply.body), []);
      assert.ok(reply.body.output.some((item: { type: string }) => item.type === 'function_call'));
    });

    it('tool-calling-streaming', async () => {
      const extra = slot.callWeatherNext();
      const reply = await post({
        input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
        tools: [weatherTool],
        stream: true,
        ...extra,
      });
      assertStream(reply.status, reply.text);
      const events = parseSse(reply.text).map((event) => event.data as Record<string, any>);
      const types = events.map((event) => event['type']);
      assert.ok(
        events.some((e) => e['type'] === 'response.output_item.added' && e['item'].type === 'function_call'),
      );
      assert.ok(types.includes('response.function_call_arguments.delta'));
      assert.ok(types.includes('response.function_call_arguments.done'));
      assert.ok(
        events.some((e) => e['type'] === 'response.output_item.done' && e['item'].type === 'function_call'),
      );
    });

    it('image-input', async () => {
      const reply = await post({
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What color is this image? Answer in one word.' },
              {
                type: 'input_image',
                image_url: `data:image/png;base64,${redSquarePng(32).toString('base64')}`,
              },
            ],
          },
        ],
      });
      assertCompleted(reply.status, reply.body);
    });

    it('multi-turn', async () => {
      const reply = await post({
        input: [
          { type: 'message', role: 'user', content: 'My name is Alice.' },
          { type: 'message', role: 'assistant', content: 'Hello Alice! Nice to meet you.' },
          { type: 'message', role: 'user', content: 'What is my name?' },
        ],
      });
      assertCompleted(reply.status, reply.body);
    });

    it("is recorded in the ledger with front door 'responses'", async () => {
      await gw.app.recorder.flush();
      const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
      assert.ok(rows.length >= 6);
      assert.ok(rows.every((row) => row.frontDoor === 'responses'));
    });
  });
}

function assertCompleted(status: number, body: Record<string, any>): void {
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(checkResponseResource(body), []);
  assert.equal(body['status'], 'completed');
  assert.ok(body['output'].length > 0);
}

function assertStream(status: number, text: string): Record<string, any> {
  assert.equal(status, 200, text);
  const events = parseSse(text).map((event) => event.data as Record<string, unknown>);
  assert.ok(events.length > 0);
  assert.deepEqual(checkResponseStream(events), []);
  return (events.at(-1)?.['response'] ?? {}) as Record<string, any>;
}
