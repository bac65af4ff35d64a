import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GEMINI_KEEPER } from './gemini-answer-keeper.ts';

const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) =>
  JSON.stringify({
    candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
    modelVersion: 'gemini-2.5-flash',
    responseId: 'r1',
    ...top,
  });

function rebuilt(chunks: string[], maxBytes = 1 << 20): any {
  const builder = GEMINI_KEEPER.builder(maxBytes);
  for (const data of chunks) builder.add('message', data);
  const message = builder.message();
  return message === undefined ? undefined : JSON.parse(message);
}

describe('the Gemini lane in the response cache', () => {
  it('keeps a whole answer that ended as asked, not one blocked, refused or broken', () => {
    assert.equal(GEMINI_KEEPER.isKept(chunk([{ text: 'hi' }], { finishReason: 'STOP' })), true);
    assert.equal(GEMINI_KEEPER.isKept(chunk([{ text: 'hi' }], { finishReason: 'MAX_TOKENS' })), true);
    assert.equal(GEMINI_KEEPER.isKept(chunk([{ text: 'hi' }], { finishReason: 'SAFETY' })), false);
    assert.equal(GEMINI_KEEPER.isKept(JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' } })), false);
    assert.equal(GEMINI_KEEPER.isKept(chunk([{ text: 'hi' }])), false, 'no finish reason');
    assert.equal(GEMINI_KEEPER.isKept('{"candidates": ['), false);
  });

  it('rebuilds a stream as the one response: texts joined by kind, calls and signatures kept, the last usage', () => {
    const answer = rebuilt([
      chunk([{ text: 'Thinking', thought: true }]),
      chunk([{ text: ' more.', thought: true }]),
      chunk([{ text: 'Paris' }], {}, { usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 1 } }),
      chunk([{ text: ' it is.', thoughtSignature: 'sig-text' }]),
      chunk([{ text: ' And' }]),
      chunk(
        [{ functionCall: { name: 'f', args: { x: 1 } }, thoughtSignature: 'sig-call' }],
        {
          finishReason: 'STOP',
        },
        { usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 7 } },
      ),
    ]);
    assert.deepEqual(answer, {
      candidates: [
        {
          content: {
            parts: [
              { text: 'Thinking more.', thought: true },
              { text: 'Paris it is.', thoughtSignature: 'sig-text' },
              { text: ' And' },
              { functionCall: { name: 'f', args: { x: 1 } }, thoughtSignature: 'sig-call' },
            ],
            role: 'model',
          },
          index: 0,
          finishReason: 'STOP',
        },
      ],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 7 },
    });
  });

  it('keeps no stream that did not end as asked, broke, grew past the bound or had two candidates', () => {
    assert.equal(rebuilt([chunk([{ text: 'a' }])]), undefined, 'no finish reason');
    assert.equal(rebuilt([chunk([{ text: 'a' }], { finishReason: 'RECITATION' })]), undefined);
    assert.equal(
      rebuilt([
        chunk([{ text: 'a' }]),
        JSON.stringify({ error: { code: 500 } }),
        chunk([], { finishReason: 'STOP' }),
      ]),
      undefined,
    );
    assert.equal(rebuilt([chunk([{ text: 'a'.repeat(200) }], { finishReason: 'STOP' })], 100), undefined);
    const two = JSON.stringify({ candidates: [{ finishReason: 'STOP' }, { finishReason: 'STOP' }] });
    assert.equal(rebuilt([two]), undefined);
    assert.equal(rebuilt(['not json']), undefined);
  });
});
