import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { significantDigits } from '../../../../test/helpers/significant-digits.ts';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import type { EmbeddingVector } from '../../providers/provider.ts';
import type { EmbedAnswer } from '../../services/use-cases/run-embed.ts';
import { embedAnswerJson } from './embed-answer-json.ts';
import { nativeUsage } from './native-chat-answer.ts';
import { EmbedResponse, Usage } from './native-schemas.ts';

function answer(embeddings: EmbeddingVector[], overrides: Partial<EmbedAnswer> = {}): EmbedAnswer {
  return {
    id: 'req_01',
    provider: 'provider-a',
    model: 'text-embedding-3-small',
    embeddings,
    usage: { tokensIn: 7, tokensOut: 0, estimatedCost: 1.4e-7, estimated: false, ...NO_CACHE_USAGE },
    latencyMs: 3.25,
    ...overrides,
  };
}

/** The answer as the native API writes it: its Usage without the Anthropic door's 1-hour share. */
function native(value: EmbedAnswer) {
  return { ...value, usage: nativeUsage(value.usage) };
}

/** The answer's bytes as text. */
function answerText(value: EmbedAnswer): string {
  return embedAnswerJson(value).toString('utf8');
}

test('embedAnswerJson writes the same JSON value as JSON.stringify, for any finite vectors', () => {
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(
      fc.array(fc.array(finite, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 }),
      (vectors) => {
        const value = answer(vectors);
        assert.deepEqual(JSON.parse(answerText(value)), JSON.parse(JSON.stringify(native(value))));
      },
    ),
  );
});

test('embedAnswerJson writes numbers as JSON.stringify does, digit for digit', () => {
  const vector = [-0, 0.1, -1e-7, 1e21, 5e-324, Math.fround(0.0023064255), 123456789.125];
  const text = answerText(answer([vector]));
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
  const parsed = JSON.parse(answerText(value)) as unknown;
  assert.equal(check(parsed), true, JSON.stringify(check.errors));
  assert.deepEqual(parsed, native(value));
});

test('significantDigits counts from the first to the last non-zero digit', () => {
  assert.deepEqual(
    ['10.0000001', '-0.00120', '1.23456789e-7', '0', '123456789', '-1000000000'].map(significantDigits),
    [9, 2, 9, 0, 9, 1],
  );
});

test('embedAnswerJson writes float32 vectors in at most nine significant digits that read back to the same float32s', () => {
  const float32 = fc.float({ noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(fc.array(float32, { minLength: 1, maxLength: 60 }), (values) => {
      const vector = Float32Array.from(values);
      const text = answerText(answer([vector]));
      const written = (JSON.parse(text) as { embeddings: number[][] }).embeddings[0] ?? [];
      // Bit for bit, the sign of zero included (strict deepEqual tells -0 from 0).
      assert.deepEqual(
        written.map((value) => Math.fround(value)),
        Array.from(vector),
      );
      const numbers = /"embeddings":\[\[(.*?)\]\]/.exec(text)?.[1]?.split(',') ?? [];
      for (const number of numbers) assert.ok(significantDigits(number) <= 9, number);
    }),
  );
});

test('embedAnswerJson writes a vector of JSON numbers beside a float32 one, each in its own form', () => {
  const text = answerText(answer([[0.1, -2], Float32Array.from([0.1, -2])]));
  assert.ok(text.includes('"embeddings":[[0.1,-2],[0.100000001,-2]]'), text);
});

test("embedAnswerJson writes an upstream's JSON number array as its bytes, beside the other forms", () => {
  const upstream = Buffer.from('[0.1000000000000000055511151231257827, -0,\n2e-3]');
  const vector = JsonNumberArray.read(upstream, 0);
  assert.ok(vector !== undefined);
  const text = answerText(answer([vector, [0.5], Float32Array.from([0.1])]));
  assert.ok(
    text.includes('"embeddings":[[0.1000000000000000055511151231257827, -0,\n2e-3],[0.5],[0.100000001]]'),
    text,
  );
  const parsed = JSON.parse(text) as { embeddings: number[][] };
  assert.ok(Object.is(parsed.embeddings[0]?.[1], -0));
});
