import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import {
  geminiFixture,
  geminiJsonFixture,
  MockGeminiServer,
  mockEmbedding,
} from '../../../../test/helpers/mock-gemini-server.ts';
import { toBatchEmbedRequest } from './gemini-embeddings.ts';
import { REPLAYED_THOUGHT_SIGNATURE } from './gemini-tools.ts';
import { toGeminiRequest } from './to-gemini-request.ts';

/**
 * The official @google/genai client pointed at the mock: if it reads the mock's answers as it reads
 * Google's, the mock (and the fixtures the adapter is tested with) speak the real wire format. The
 * requests the SDK sends are also compared with the adapter's, field by field.
 */
describe('the mock Gemini API, as seen by the official @google/genai SDK', () => {
  const KEY = 'sdk-test-key';
  let mock: MockGeminiServer;
  let ai: GoogleGenAI;

  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: KEY });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: mock.origin } });
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());

  it('models.generateContent parses the generateContent fixture; its request matches the adapter', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Capital of France?' }] },
        { role: 'model', parts: [{ text: 'Paris.' }] },
        { role: 'user', parts: [{ text: 'As JSON' }] },
      ],
      config: {
        systemInstruction: 'Be brief.',
        temperature: 0.3,
        maxOutputTokens: 200,
        responseMimeType: 'application/json',
        responseJsonSchema: schema,
      },
    });
    const fixture = geminiJsonFixture('generate-content.json');
    assert.equal(response.text, fixture.candidates[0].content.parts[0].text);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(response.modelVersion, 'gemini-2.5-flash');
    assert.deepEqual({ ...response.usageMetadata }, fixture.usageMetadata);

    const sent = mock.requests[0]!;
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(sent.headers['x-goog-api-key'], KEY);
    const ours = toGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'As JSON' },
      ],
      temperature: 0.3,
      maxTokens: 200,
      jsonSchema: { name: 'city', schema },
    });
    // The SDK labels the system instruction with a role; the API ignores it there.
    const { role, ...systemInstruction } = sent.body.systemInstruction;
    assert.equal(role, 'user');
    assert.deepEqual({ ...sent.body, systemInstruction }, ours);
  });

  it('function calling: the SDK sends what the adapter sends, and reads scripted calls', async () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    mock.replyNext({ toolCalls: [{ id: 'fc_1', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { id: 'fc_0', name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: REPLAYED_THOUGHT_SIGNATURE,
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'fc_0', name: 'get_weather', response: { temp: 12 } } }],
        },
      ],
      config: {
        tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: parameters }] }],
        toolConfig: {
          functionCallingConfig: {
            mode: FunctionCallingConfigMode.ANY,
            allowedFunctionNames: ['get_weather'],
          },
        },
        stopSequences: ['END'],
      },
    });
    assert.deepEqual(response.functionCalls, [{ id: 'fc_1', name: 'get_weather', args: { city: 'Rome' } }]);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    const ours = toGeminiRequest({
      model: 'gemini-2.5-flash',
      tools: [{ name: 'get_weather', parameters }],
      toolChoice: { name: 'get_weather' },
      stop: ['END'],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'fc_0', name: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        { role: 'tool', toolCallId: 'fc_0', content: '{"temp":12}' },
      ],
    });
    assert.deepEqual(mock.requests[0]?.body, ours);
  });

  it('the mock refuses, as Gemini 3 does, a current-turn call replayed without a thought signature', async () => {
    await assert.rejects(
      ai.models.generateContent({
        model: 'gemini-3-flash',
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: {} } }] },
        ],
      }),
      (e: unknown) => e instanceof ApiError && e.status === 400 && /thought_signature/.test(e.message),
    );
  });

  it('models.generateContentStream parses the alt=sse fixture chunk by chunk', async () => {
    const texts: string[] = [];
    const finishReasons: unknown[] = [];
    let lastUsage: unknown;
    for await (const chunk of await ai.models.generateContentStream({
      model: 'models/gemini-2.5-flash',
      contents: 'Tell me about Paris',
    })) {
      texts.push(chunk.text ?? '');
      finishReasons.push(chunk.candidates?.[0]?.finishReason);
      lastUsage = { ...chunk.usageMetadata };
    }
    assert.deepEqual(texts, [
      'Paris is the capital',
      ' of France, known for the Eiffel Tower',
      ' and the Louvre.',
    ]);
    assert.deepEqual(finishReasons, [undefined, undefined, 'STOP']);
    const lastEvent = geminiFixture('stream-generate-content.sse').trim().split('\r\n\r\n').at(-1)!;
    assert.deepEqual(lastUsage, JSON.parse(lastEvent.slice('data: '.length)).usageMetadata);
    assert.equal(mock.requests.length, 1, 'a finished stream is not continued');
    assert.equal(mock.requests[0]!.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('models.embedContent with several contents calls batchEmbedContents, as the adapter does', async () => {
    const inputs = ['first text', 'second text', 'third text'];
    const response = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: inputs });
    assert.deepEqual(
      response.embeddings?.map((e) => e.values),
      inputs.map(mockEmbedding),
    );
    const sent = mock.requests[0]!;
    assert.equal(sent.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // The SDK adds role "user" to each content; otherwise the bodies are the same.
    const withoutRoles = {
      requests: sent.body.requests.map((r: any) => ({
        model: r.model,
        content: { parts: r.content.parts },
      })),
    };
    assert.deepEqual(withoutRoles, toBatchEmbedRequest('gemini-embedding-001', inputs));
  });

  it('models.countTokens sends contents to :countTokens and reads totalTokens', async () => {
    const counted = await ai.models.countTokens({
      model: 'gemini-2.5-flash',
      contents: 'Count these words.',
    });
    assert.equal(counted.totalTokens, Math.ceil('Count these words.'.length / 4));
    const sent = mock.requests.at(-1);
    assert.equal(sent?.path, '/v1beta/models/gemini-2.5-flash:countTokens');
    assert.deepEqual(sent?.body, { contents: [{ parts: [{ text: 'Count these words.' }], role: 'user' }] });
  });

  it('the mock error bodies are read by the SDK as Google errors', async () => {
    for (const [fixture, status] of [
      ['error-429-per-minute.json', 429],
      ['error-400-api-key-invalid.json', 400],
      ['error-503-unavailable.json', 503],
    ] as const) {
      mock.failNext(1, { status, body: geminiFixture(fixture) });
      await assert.rejects(
        ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
        (e: unknown) => e instanceof ApiError && e.status === status,
      );
    }
    const wrongKey = new GoogleGenAI({ apiKey: 'not-the-key', httpOptions: { baseUrl: mock.origin } });
    await assert.rejects(
      wrongKey.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
      (e: unknown) => e instanceof ApiError && e.status === 400 && e.message.includes('API_KEY_INVALID'),
    );
  });
});
