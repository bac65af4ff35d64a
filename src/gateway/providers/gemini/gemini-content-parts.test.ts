import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toGeminiRequest } from './to-gemini-request.ts';

describe('the Gemini adapter writes content parts', () => {
  it('base64 as inlineData, URLs as fileData with a type, thinking by effort, thinking parts left out', () => {
    const request = toGeminiRequest({
      model: 'gemini-2.5-flash',
      reasoning: { effort: 'low', budgetTokens: 3000 },
      messages: [
        {
          role: 'user',
          content: 'Look.',
          parts: [
            { type: 'text', text: 'Look.' },
            { type: 'text', text: '' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.webp?size=2' } },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/photo' } },
            { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' } },
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERg==' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Seen.',
          parts: [
            { type: 'thinking', vendor: 'anthropic', text: 'secret', signature: 's' },
            { type: 'text', text: 'Seen.' },
          ],
        },
      ],
    });
    assert.deepEqual(request.contents, [
      {
        role: 'user',
        parts: [
          { text: 'Look.' },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=2' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERg==' } },
        ],
      },
      { role: 'model', parts: [{ text: 'Seen.' }] },
    ]);
    assert.deepEqual(request.generationConfig?.thinkingConfig, { thinkingBudget: 2048 });
  });

  it('asks a model that does not think (before 2.5) for no thinkingConfig', () => {
    const request = toGeminiRequest({
      model: 'gemini-2.0-flash',
      reasoning: { effort: 'high' },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(request.generationConfig, undefined);
  });
});
