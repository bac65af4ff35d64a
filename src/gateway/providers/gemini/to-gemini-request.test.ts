import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCall } from '../provider.ts';
import { geminiMethodPath, geminiModelId, geminiModelResource } from './gemini-model.ts';
import { type GeminiGenerateContentRequest, toGeminiRequest } from './to-gemini-request.ts';

const MODEL = 'gemini-2.5-flash';

describe('toGeminiRequest', () => {
  const cases: { name: string; call: ChatCall; expected: GeminiGenerateContentRequest }[] = [
    {
      name: 'a single user message, nothing else',
      call: { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] },
      expected: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    },
    {
      name: 'system messages become one systemInstruction, joined in order, wherever they stand',
      call: {
        model: MODEL,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?' },
          { role: 'system', content: 'Answer in English.' },
        ],
      },
      expected: {
        systemInstruction: { parts: [{ text: 'Be brief.\n\nAnswer in English.' }] },
        contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }],
      },
    },
    {
      name: 'assistant is model; tool results are user text; same-role turns merge; names are dropped',
      call: {
        model: MODEL,
        messages: [
          { role: 'user', content: 'Weather in Paris?', name: 'alice' },
          { role: 'assistant', content: 'Let me look.' },
          { role: 'assistant', content: 'Calling the weather tool.' },
          { role: 'tool', content: '{"temp":21}', name: 'weather' },
          { role: 'tool', content: '{"wind":3}' },
          { role: 'user', content: 'And tomorrow?' },
        ],
      },
      expected: {
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
          { role: 'model', parts: [{ text: 'Let me look.' }, { text: 'Calling the weather tool.' }] },
          {
            role: 'user',
            parts: [
              { text: 'Tool result (weather): {"temp":21}' },
              { text: 'Tool result: {"wind":3}' },
              { text: 'And tomorrow?' },
            ],
          },
        ],
      },
    },
    {
      name: 'empty messages are left out (Gemini refuses empty text parts)',
      call: {
        model: MODEL,
        messages: [
          { role: 'user', content: 'One' },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'Two' },
        ],
      },
      expected: { contents: [{ role: 'user', parts: [{ text: 'One' }, { text: 'Two' }] }] },
    },
    {
      name: 'only system text: it becomes the user turn, since contents must not be empty',
      call: { model: MODEL, messages: [{ role: 'system', content: 'Say hello.' }] },
      expected: { contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }] },
    },
    {
      name: 'temperature (0 included) and maxTokens go into generationConfig',
      call: { model: MODEL, messages: [{ role: 'user', content: 'x' }], temperature: 0, maxTokens: 256 },
      expected: {
        contents: [{ role: 'user', parts: [{ text: 'x' }] }],
        generationConfig: { temperature: 0, maxOutputTokens: 256 },
      },
    },
    {
      name: 'a JSON schema is sent natively as responseJsonSchema with the JSON MIME type',
      call: {
        model: MODEL,
        messages: [{ role: 'user', content: 'A city' }],
        jsonSchema: {
          name: 'city',
          schema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        },
      },
      expected: {
        contents: [{ role: 'user', parts: [{ text: 'A city' }] }],
        generationConfig: {
          responseMimeType: 'application/json',
          responseJsonSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        },
      },
    },
  ];

  for (const { name, call, expected } of cases) {
    it(name, () => assert.deepEqual(toGeminiRequest(call), expected));
  }

  it('never uses the OpenAPI-subset responseSchema field', () => {
    const request = toGeminiRequest({
      model: MODEL,
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { name: 'n', schema: { type: 'string' } },
    });
    assert.equal('responseSchema' in (request.generationConfig ?? {}), false);
  });
});

describe('Gemini model names', () => {
  it('accepts the bare id and the models/ resource name', () => {
    assert.equal(geminiModelId('models/gemini-2.5-flash'), 'gemini-2.5-flash');
    assert.equal(geminiModelId('gemini-2.5-flash'), 'gemini-2.5-flash');
    assert.equal(geminiModelResource('gemini-embedding-001'), 'models/gemini-embedding-001');
    assert.equal(geminiModelResource('models/gemini-embedding-001'), 'models/gemini-embedding-001');
  });

  it('URL-encodes the model so it cannot change the path or add a query', () => {
    assert.equal(
      geminiMethodPath('models/gemini-2.5-flash', 'generateContent'),
      '/v1beta/models/gemini-2.5-flash:generateContent',
    );
    assert.equal(
      geminiMethodPath('../x?key=leak', 'generateContent'),
      '/v1beta/models/..%2Fx%3Fkey%3Dleak:generateContent',
    );
  });
});
