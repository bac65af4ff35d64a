import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { readGeminiRequest } from './read-gemini-request.ts';
import { encodeThoughtToken } from './thought-token.ts';

const read = (body: unknown) => readGeminiRequest(body, 'm', false, false);

describe('readGeminiRequest (the cross-vendor lane)', () => {
  it('reads contents, system instruction, calls and their responses matched by name when ids are absent', () => {
    const request = read({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Be kind.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { name: 'weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'weather', response: { sky: 'sunny' } } },
            { functionResponse: { name: 'weather', response: { sky: 'rain' } } },
          ],
        },
      ],
    });
    assert.equal(request.use, 'chat');
    const [system, user, model, first, second] = request.input.messages;
    assert.deepEqual(system, { role: 'system', content: 'Be brief.\nBe kind.' });
    assert.equal(user?.content, 'Weather?');
    assert.equal(model?.content, 'Checking.');
    assert.deepEqual(
      model?.toolCalls?.map((call) => [call.id, call.arguments]),
      [
        ['call_1_1', '{"city":"Paris"}'],
        ['call_1_2', '{"city":"Rome"}'],
      ],
    );
    assert.deepEqual([first?.toolCallId, first?.content], ['call_1_1', '{"sky":"sunny"}']);
    assert.deepEqual([second?.toolCallId, second?.role], ['call_1_2', 'tool']);
  });

  it('names what has no counterpart and maps the generation config', () => {
    const request = read({
      contents: [{ parts: [{ text: 'Hi' }] }],
      safetySettings: [],
      cachedContent: 'cachedContents/x',
      tools: [
        { googleSearch: {} },
        {
          functionDeclarations: [
            {
              name: 'f',
              parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } } },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: {
        temperature: 0.3,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        thinkingConfig: { thinkingBudget: 5000 },
      },
    });
    assert.deepEqual(request.ignored, [
      'safetySettings',
      'cachedContent',
      'generationConfig.topP',
      'generationConfig.topK',
      'tools[0].googleSearch',
    ]);
    assert.equal(request.use, 'chat');
    if (request.use !== 'chat') return;
    assert.equal(request.input.temperature, 0.3);
    assert.equal(request.input.maxTokens, 100);
    assert.deepEqual(request.input.stop, ['END']);
    assert.deepEqual(request.input.reasoning, { effort: 'medium', budgetTokens: 5000 });
    assert.deepEqual(request.input.toolChoice, { name: 'f' });
    assert.deepEqual(request.input.tools?.[0]?.parameters, {
      type: 'object',
      properties: { n: { type: ['integer', 'null'] } },
    });
  });

  it('includeThoughts without a budget is medium effort; a budget of 0 turns thinking off', () => {
    const effort = (thinkingConfig: unknown) => {
      const request = read({ contents: [{ parts: [{ text: 'Hi' }] }], generationConfig: { thinkingConfig } });
      return request.use === 'chat' ? request.input.reasoning : undefined;
    };
    assert.deepEqual(effort({ includeThoughts: true }), { effort: 'medium' });
    assert.equal(effort({ thinkingBudget: 0, includeThoughts: true }), undefined);
    assert.deepEqual(effort({ thinkingLevel: 'HIGH' }), { effort: 'high', budgetTokens: 24576 });
  });

  it('a JSON response with a schema is structured output; with declarations it is refused', () => {
    const request = read({
      contents: [{ parts: [{ text: 'Hi' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
      },
    });
    assert.equal(request.use, 'json');
    if (request.use === 'json')
      assert.deepEqual(request.input.schema, { type: 'object', properties: { a: { type: 'string' } } });
    assert.throws(
      () =>
        read({
          contents: [{ parts: [{ text: 'Hi' }] }],
          tools: [{ functionDeclarations: [{ name: 'f' }] }],
          generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } },
        }),
      (error: unknown) => error instanceof ApiError && error.statusCode === 400,
    );
  });

  it("carries the gateway's thought token back as the turn's thinking; any other signature is left out", () => {
    const token = encodeThoughtToken([
      { type: 'thinking', vendor: 'anthropic', text: 'Hmm.', signature: 'sig' },
    ]);
    const request = read({
      contents: [
        { role: 'user', parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [
            { text: 'Hmm.', thought: true },
            { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: token },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'f', response: {} } }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { id: 'c2', name: 'f', args: {} },
              thoughtSignature: 'skip_thought_signature_validator',
            },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { id: 'c2', name: 'f', response: {} } }] },
      ],
    });
    const turns = request.input.messages.filter((message) => message.role === 'assistant');
    assert.deepEqual(turns[0]?.parts?.[0], {
      type: 'thinking',
      vendor: 'anthropic',
      text: 'Hmm.',
      signature: 'sig',
    });
    assert.equal(turns[1]?.parts, undefined);
  });

  it('refuses what no other vendor can be given, naming the field as written', () => {
    const refusal = (body: unknown) => {
      try {
        read(body);
      } catch (error) {
        return error instanceof ApiError ? error.message : String(error);
      }
      return 'accepted';
    };
    assert.match(refusal({ contents: [] }), /'contents'/);
    assert.match(refusal({ contents: [{ parts: [{ executableCode: {} }] }] }), /'contents\[0\]\.parts\[0\]'/);
    assert.match(
      refusal({ contents: [{ parts: [{ inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }] }),
      /mimeType/,
    );
    // A mimeType that is not a string is refused, not turned into text: `{"toString": 1}` was a 500.
    for (const mimeType of [{ toString: 1 }, ['image/png'], 3]) {
      assert.match(
        refusal({ contents: [{ parts: [{ inlineData: { mimeType, data: 'AAAA' } }] }] }),
        /inlineData\.mimeType.*must be a string/,
      );
      assert.match(
        refusal({ contents: [{ parts: [{ fileData: { mimeType, fileUri: 'https://x.test/a.png' } }] }] }),
        /fileData\.mimeType.*must be a string/,
      );
    }
    assert.match(
      refusal({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { candidateCount: 2 } }),
      /candidateCount/,
    );
    assert.match(
      refusal({ contents: [{ parts: [{ functionResponse: { name: 'nobody', response: {} } }] }] }),
      /answers no functionCall named 'nobody'/,
    );
  });
});
