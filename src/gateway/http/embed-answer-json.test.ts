import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import type { EmbedAnswer } from '../services/run-embed.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { EmbedResponse, Usage } from './schemas.ts';

function answer(embeddings: number[][], overrides: Partial<EmbedAnswer> = {}): EmbedAnswer {
  return {
    id: 'req_01',
    provider: 'provider-a',
    model: 'text-embedding-3-small',
    embeddings,
    usage: { tokensIn: 7, tokensOut: 0, estimatedCost: 1.4e-7, estimated: false },
    latencyMs: 3.25,
    ...overrides,
  };
}

test('embedAnswerJson writes the same JSON value as JSON.stringify, for any finite vectors', () => {
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(
      fc.array(fc.array(finite, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 }),
      (vectors) => {
        const value = answer(vectors);
        assert.deepEqual(JSON.parse(embedAnswerJson(value)), JSON.parse(JSON.stringify(value)));
      },
    ),
  );
});

test('embedAnswerJson writes numbers as JSON.stringify does, digit for digit', () => {
  const vector = [-0, 0.1, -1e-7, 1e21, 5e-324, Math.fround(0.0023064255), 123456789.125];
  const text = embedAnswerJson(answer([vector]));
  assert.ok(text.includes(`"embeddings":[${JSON.stringify(vector)}]`), text);
});

test('embedAnswerJson output is valid against the EmbedResponse schema and escapes its strings', () => {
  const check = new Ajv({ strict: false }).addSchema(Usage).compile(EmbedResponse);
  const value = answer(
    [
      [0.5, -0.25],
      [1, 2],
    ],
    { model: 'a "quoted"\nmodel\u2028', id: 'req_\\x' },
  );
  const parsed = JSON.parse(embedAnswerJson(value)) as unknown;
  assert.equal(check(parsed), true, JSON.stringify(check.errors));
  assert.deepEqual(parsed, value);
});
