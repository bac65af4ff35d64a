import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  geminiFixture,
  MockGeminiServer,
  mockEmbedding,
} from '../../../../test/helpers/mock-gemini-server.ts';
import type { SettingsOfKind } from '../../../config/config-types.ts';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import type { CallContext, ChatStreamEvent, EmbeddingVector } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { GeminiProvider } from './gemini-provider.ts';

const KEY = 'AIzaSy-test-key-0123456789';

function settings(baseUrl: string, apiKey = KEY): SettingsOfKind<'gemini'> {
  return {
    slot: 'provider-b',
    kind: 'gemini',
    baseUrl,
    apiKey,
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    models: [],
    defaultMaxTokens: 1024,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, totalMs: 10_000 },
  };
}

/** The numbers a client reads from a vector. */
function numbersOf(vector: EmbeddingVector): number[] {
  if (vector instanceof JsonNumberArray)
    return JSON.parse(`[${Buffer.from(vector.elements).toString('latin1')}]`);
  return Array.from(vector);
}

function context(signal = new AbortController().signal): CallContext {
  return { signal, requestId: 'req-1', attempt: 0, metadata: undefined };
}

describe('GeminiProvider against a mock Gemini API', () => {
  let mock: MockGeminiServer;
  let provider: GeminiProvider;

  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: KEY });
    provider = new GeminiProvider(settings(mock.origin));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
    mock.streamEventDelayMs = 5;
  });

  it('chat: sends generateContent with the key in a header only, and maps the answer and usage', async () => {
    const result = await provider.chat(
      {
        model: 'models/gemini-2.5-flash',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?' },
        ],
        temperature: 0.3,
        maxTokens: 200,
      },
      context(),
    );
    assert.equal(mock.requests.length, 1);
    const request = mock.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(request.headers['x-goog-api-key'], KEY);
    assert.ok(!request.path.includes(KEY) && !request.path.includes('key='));
    assert.match(String(request.headers['content-type']), /^application\/json/);
    assert.deepEqual(request.body, {
      contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { temperature: 0.3, maxOutputTokens: 200 },
    });
    assert.deepEqual(result, {
      model: 'gemini-2.5-flash',
      content: 'The capital of France is **Paris**. It lies on the Seine in the north of the country.',
      finishReason: 'stop',
      usage: { inputTokens: 2143, outputTokens: 448, cacheReadTokens: 2027, reasoningTokens: 427 },
    });
  });

  it('chat with a JSON schema: responseMimeType and responseJsonSchema; the model path is encoded', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    await provider.chat(
      {
        model: 'tuned model/v1',
        messages: [{ role: 'user', content: 'A city' }],
        jsonSchema: { name: 'city', schema },
      },
      context(),
    );
    const request = mock.requests[0]!;
    assert.equal(request.path, '/v1beta/models/tuned%20model%2Fv1:generateContent');
    assert.deepEqual(request.body.generationConfig, {
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    assert.equal(request.body.generationConfig.responseSchema, undefined);
  });

  it('streamChat: calls streamGenerateContent?alt=sse and yields model, deltas, finish, usage', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of provider.streamChat(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Tell me about Paris' }] },
      context(),
    )) {
      events.push(event);
    }
    const request = mock.requests[0]!;
    assert.equal(request.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(request.headers['x-goog-api-key'], KEY);
    assert.deepEqual(request.body, {
      contents: [{ role: 'user', parts: [{ text: 'Tell me about Paris' }] }],
    });
    assert.deepEqual(events, [
      { type: 'model', model: 'gemini-2.5-flash' },
      { type: 'delta', content: 'Paris is the capital' },
      { type: 'delta', content: ' of France, known for the Eiffel Tower' },
      { type: 'delta', content: ' and the Louvre.' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 454, reasoningTokens: 437 } },
    ]);
  });

  it('streamChat: a caller abort mid-stream ends it as aborted, not as an upstream fault', async () => {
    mock.streamEventDelayMs = 500;
    const controller = new AbortController();
    const events: ChatStreamEvent[] = [];
    const started = Date.now();
    await assert.rejects(
      (async () => {
        for await (const event of provider.streamChat(
          { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] },
          context(controller.signal),
        )) {
          events.push(event);
          if (event.type === 'delta') controller.abort();
        }
      })(),
      (e: ProviderError) => e.failure === 'aborted' && !e.retryable,
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['model', 'delta'],
    );
    assert.ok(Date.now() - started < 450, 'the abort did not wait for the next chunk');
  });

  it('embed: batches of at most 100 per batchEmbedContents call, vectors in input order, no usage', async () => {
    const inputs = Array.from({ length: 250 }, (_, i) => `document number ${i}`);
    const result = await provider.embed({ model: 'models/gemini-embedding-001', inputs }, context());
    assert.deepEqual(
      mock.requests.map((r) => [r.path, r.body.requests.length]),
      [
        ['/v1beta/models/gemini-embedding-001:batchEmbedContents', 100],
        ['/v1beta/models/gemini-embedding-001:batchEmbedContents', 100],
        ['/v1beta/models/gemini-embedding-001:batchEmbedContents', 50],
      ],
    );
    assert.ok(mock.requests.every((r) => r.headers['x-goog-api-key'] === KEY && !r.path.includes('key=')));
    assert.deepEqual(mock.requests[2]!.body.requests[49], {
      model: 'models/gemini-embedding-001',
      content: { parts: [{ text: 'document number 249' }] },
    });
    assert.equal(result.model, 'gemini-embedding-001');
    assert.deepEqual(result.vectors.map(numbersOf), inputs.map(mockEmbedding));
    assert.equal(result.usage, undefined);
  });

  it('embed: each values array is kept as the bytes Google sent, spelled as it sent them', async () => {
    const spellings = ['-0', '1E-7', '0.10', '0.1000000000000000055511151231257827', '-3.0517578125e-05'];
    // A different spelling per input, so the order shows too.
    mock.embeddingNumbers = (text) => spellings.slice(Number(text)).join(',\n        ');
    const inputs = ['0', '1', '2', '3', '4'];
    const result = await provider.embed({ model: 'gemini-embedding-001', inputs }, context());
    assert.deepEqual(
      result.vectors.map((vector) => {
        assert.ok(vector instanceof JsonNumberArray, 'a view of the upstream bytes');
        return Buffer.from(vector.elements).toString('latin1');
      }),
      // Google's layout around them too: one value a line.
      inputs.map((text) => `\n        ${spellings.slice(Number(text)).join(',\n        ')}\n      `),
    );
    assert.deepEqual(
      result.vectors.map((vector) => vector.length),
      [5, 4, 3, 2, 1],
    );
  });

  it('embed: a body the byte walker does not read is parsed whole, as before', async () => {
    mock.failNext(1, { status: 200, body: '{"embeddings":[{"values":[1,2]}, {"value\\u0073":[0.5,1e39]}]}' });
    const result = await provider.embed({ model: 'gemini-embedding-001', inputs: ['a', 'b'] }, context());
    assert.deepEqual(result.vectors, [
      [1, 2],
      [0.5, 1e39],
    ]);
    mock.failNext(1, { status: 200, body: '{"embeddings":[{"values":[1,2]},{"values":[0.5,1e400]}]}' });
    await assert.rejects(
      provider.embed({ model: 'gemini-embedding-001', inputs: ['a', 'b'] }, context()),
      (e: ProviderError) => e.failure === 'invalid_response' && /not numbers/.test(e.message),
    );
  });

  it('embed: an answer with a different number of vectors than inputs is an invalid response', async () => {
    mock.failNext(1, { status: 200, body: geminiFixture('batch-embed-contents.json') });
    await assert.rejects(
      provider.embed({ model: 'gemini-embedding-001', inputs: ['a', 'b'] }, context()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
  });

  const errorCases: {
    name: string;
    fixture: string;
    status: number;
    headers?: Record<string, string>;
    retryable: boolean;
    retryAfterMs: number | undefined;
    detail: string;
  }[] = [
    {
      name: '400 API_KEY_INVALID',
      fixture: 'error-400-api-key-invalid.json',
      status: 400,
      retryable: false,
      retryAfterMs: undefined,
      detail: 'HTTP 400 API_KEY_INVALID',
    },
    {
      name: '429 per-minute quota',
      fixture: 'error-429-per-minute.json',
      status: 429,
      retryable: true,
      retryAfterMs: 12_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED',
    },
    {
      name: '429 per-minute quota with a longer retry-after header',
      fixture: 'error-429-per-minute.json',
      status: 429,
      headers: { 'retry-after': '20' },
      retryable: true,
      retryAfterMs: 20_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED',
    },
    {
      name: '429 per-day quota',
      fixture: 'error-429-per-day.json',
      status: 429,
      retryable: false,
      retryAfterMs: 41_000,
      detail: 'HTTP 429 RESOURCE_EXHAUSTED (daily quota)',
    },
    {
      name: '503 UNAVAILABLE',
      fixture: 'error-503-unavailable.json',
      status: 503,
      retryable: true,
      retryAfterMs: undefined,
      detail: 'HTTP 503 UNAVAILABLE',
    },
  ];
  for (const { name, fixture, status, headers, retryable, retryAfterMs, detail } of errorCases) {
    it(`maps ${name} on chat, stream and embed alike`, async () => {
      const body = geminiFixture(fixture);
      const upstreamMessage = JSON.parse(body).error.message as string;
      const calls = [
        () =>
          provider.chat({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }, context()),
        async () => {
          for await (const _ of provider.streamChat(
            { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] },
            context(),
          )) {
            // The error comes before any event.
          }
        },
        () => provider.embed({ model: 'gemini-embedding-001', inputs: ['x'] }, context()),
      ];
      for (const call of calls) {
        mock.failNext(1, { status, body, ...(headers ? { headers } : {}) });
        await assert.rejects(call(), (e: ProviderError) => {
          assert.equal(e.name, 'ProviderError');
          assert.equal(e.failure, 'http');
          assert.equal(e.status, status);
          assert.equal(e.retryable, retryable);
          assert.equal(e.retryAfterMs, retryAfterMs);
          assert.equal(e.message, `provider-b failed (HTTP ${status}): ${detail}`);
          assert.ok(!e.message.includes(upstreamMessage.slice(0, 25)), 'no upstream message text');
          assert.ok(!e.message.includes(KEY), 'no key');
          return true;
        });
      }
    });
  }

  it('a wrong key gets the real 400 API_KEY_INVALID answer, mapped as not retryable', async () => {
    const wrong = new GeminiProvider(settings(mock.origin, 'AIzaSy-wrong-key'));
    await assert.rejects(
      wrong.chat({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }, context()),
      (e: ProviderError) =>
        e.status === 400 &&
        !e.retryable &&
        e.message.endsWith('API_KEY_INVALID') &&
        !e.message.includes('wrong'),
    );
    assert.equal(mock.requests[0]!.headers['x-goog-api-key'], 'AIzaSy-wrong-key');
    await wrong.close();
  });

  it('a 2xx body that is not a GenerateContentResponse is an invalid response', async () => {
    mock.failNext(1, { status: 200, body: 'not json' });
    mock.failNext(1, { status: 200, body: { unexpected: true } });
    const call = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'x' }] };
    await assert.rejects(
      provider.chat(call, context()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
    await assert.rejects(
      provider.chat(call, context()),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
  });

  it('a refused connection is a retryable connection failure', async () => {
    const nowhere = new GeminiProvider(settings('http://127.0.0.1:1'));
    await assert.rejects(
      nowhere.chat({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }, context()),
      (e: ProviderError) => e.failure === 'connection' && e.retryable,
    );
    await nowhere.close();
  });
});
