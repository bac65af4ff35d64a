import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiJsonFixture } from '../../../../test/helpers/mock-gemini-server.ts';
import type { ChatResult } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { fromGeminiResponse, mapFinishReason, readUsage } from './from-gemini-response.ts';

const SLOT = 'provider-b';

describe('fromGeminiResponse (recorded fixtures)', () => {
  const cases: { fixture: string; requested: string; expected: ChatResult }[] = [
    {
      fixture: 'generate-content.json',
      requested: 'models/gemini-2.5-flash',
      expected: {
        model: 'gemini-2.5-flash',
        content: 'The capital of France is **Paris**. It lies on the Seine in the north of the country.',
        finishReason: 'stop',
        // promptTokenCount already includes the 2027 cached tokens; thinking counts as output.
        usage: { inputTokens: 2143, outputTokens: 21 + 427, cacheReadTokens: 2027, reasoningTokens: 427 },
      },
    },
    {
      fixture: 'generate-content-thoughts.json',
      requested: 'gemini-2.5-pro',
      expected: {
        model: 'gemini-2.5-pro',
        content: 'Paris.',
        finishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 305, reasoningTokens: 303 },
      },
    },
    {
      fixture: 'generate-content-max-tokens.json',
      requested: 'gemini-2.5-flash',
      expected: {
        model: 'gemini-2.5-flash',
        content: '',
        finishReason: 'length',
        usage: { inputTokens: 9, outputTokens: 31, reasoningTokens: 31 },
      },
    },
    {
      fixture: 'generate-content-blocked.json',
      requested: 'gemini-2.5-flash',
      expected: {
        model: 'gemini-2.5-flash',
        content: '',
        finishReason: 'content_filter',
        usage: { inputTokens: 17, outputTokens: 0 },
      },
    },
  ];
  for (const { fixture, requested, expected } of cases) {
    it(fixture, () =>
      assert.deepEqual(fromGeminiResponse(geminiJsonFixture(fixture), requested, SLOT), expected),
    );
  }

  it('falls back to the requested model (without models/) when modelVersion is missing', () => {
    const body = geminiJsonFixture('generate-content.json');
    delete body.modelVersion;
    assert.equal(
      fromGeminiResponse(body, 'models/gemini-2.5-flash-lite', SLOT).model,
      'gemini-2.5-flash-lite',
    );
  });

  it('reports no usage when usageMetadata is missing or unreadable', () => {
    const body = geminiJsonFixture('generate-content.json');
    delete body.usageMetadata;
    assert.equal(fromGeminiResponse(body, 'm', SLOT).usage, undefined);
    assert.equal(readUsage({ promptTokenCount: '12', candidatesTokenCount: 3 }), undefined);
    assert.equal(readUsage({ totalTokenCount: 3 }), undefined);
    assert.deepEqual(
      readUsage({ promptTokenCount: 10, candidatesTokenCount: 3, toolUsePromptTokenCount: 5 }),
      {
        inputTokens: 15,
        outputTokens: 3,
      },
    );
  });

  const broken: [string, unknown][] = [
    ['a non-object body', 'hello'],
    ['an array body', [1]],
    ['no candidates and no block reason', { usageMetadata: { promptTokenCount: 1 } }],
    ['candidates that is not an array', { candidates: {} }],
    ['a candidate that is not an object', { candidates: ['x'] }],
    ['parts that is not an array', { candidates: [{ content: { parts: 'x' }, finishReason: 'STOP' }] }],
    ['a part text that is not a string', { candidates: [{ content: { parts: [{ text: 1 }] } }] }],
    ['a finishReason that is not a string', { candidates: [{ finishReason: 1 }] }],
  ];
  for (const [name, body] of broken) {
    it(`rejects ${name} as invalid_response`, () => {
      assert.throws(
        () => fromGeminiResponse(body, 'm', SLOT),
        (e: ProviderError) => e.failure === 'invalid_response' && e.slot === SLOT && !e.retryable,
      );
    });
  }
});

describe('mapFinishReason', () => {
  const table: [string, ReturnType<typeof mapFinishReason>][] = [
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['CONTINUATION', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['LANGUAGE', 'other'],
    ['MALFORMED_FUNCTION_CALL', 'other'],
    ['FINISH_REASON_UNSPECIFIED', 'other'],
    ['SOMETHING_NEW', 'other'],
  ];
  for (const [reason, expected] of table) {
    it(`${reason} -> ${expected}`, () => assert.equal(mapFinishReason(reason), expected));
  }
});
