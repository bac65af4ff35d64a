import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { EmbeddingCreateParams } from 'openai/resources/embeddings';
import { openAIFixtureJson } from '../../../../test/helpers/mock-openai-server.ts';
import { ProviderError } from '../provider-error.ts';
import {
  decodeFloat32Base64,
  decodeStrictBase64,
  fromOpenAIEmbeddingsResponse,
  toOpenAIEmbeddingsRequest,
} from './openai-embeddings.ts';

type List = { object: string; model: string; data: { index: number; embedding: unknown }[]; usage: unknown };
const base64 = openAIFixtureJson('embeddings-base64.json') as List;
const float = openAIFixtureJson('embeddings-float.json') as List;
const floatVectors = float.data.map((item) => item.embedding as number[]);
/** The same vectors as float32, as the base64 response decodes to. */
const float32Vectors = floatVectors.map((vector) => Float32Array.from(vector));
const call = { model: 'text-embedding-3-small', inputs: ['The food was delicious', 'and the waiter...'] };

function encode(values: number[], littleEndian = true): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => {
    if (littleEndian) bytes.writeFloatLE(value, i * 4);
    else bytes.writeFloatBE(value, i * 4);
  });
  return bytes.toString('base64');
}

describe('toOpenAIEmbeddingsRequest', () => {
  it('asks for base64 with every input, in a shape the SDK types accept', () => {
    const body: EmbeddingCreateParams = toOpenAIEmbeddingsRequest(call);
    assert.deepEqual(body, {
      model: 'text-embedding-3-small',
      input: call.inputs,
      encoding_format: 'base64',
    });
  });
});

describe('fromOpenAIEmbeddingsResponse', () => {
  it('decodes the recorded base64 response to the same vectors as the recorded float one', () => {
    const result = fromOpenAIEmbeddingsResponse('provider-a', base64, call);
    assert.deepEqual(result, {
      model: 'text-embedding-3-small',
      // Kept as the float32 they are, with the values of the float response.
      vectors: float32Vectors,
      usage: { inputTokens: 9 },
    });
  });

  it('accepts float arrays from a server that ignored encoding_format', () => {
    const result = fromOpenAIEmbeddingsResponse('provider-a', float, call);
    assert.deepEqual(result.vectors, floatVectors);
  });

  it('puts vectors in input order by index, and keeps the requested model when none is named', () => {
    const shuffled = { data: [...base64.data].reverse() };
    const result = fromOpenAIEmbeddingsResponse('provider-a', shuffled, call);
    assert.deepEqual(result.vectors, float32Vectors);
    assert.equal(result.model, 'text-embedding-3-small');
    assert.equal(result.usage, undefined);
  });

  const invalid: [string, unknown][] = [
    ['no data list', { object: 'list' }],
    ['fewer vectors than inputs', { data: [base64.data[0]] }],
    ['a repeated index', { data: [base64.data[0], base64.data[0]] }],
    ['an index out of range', { data: [base64.data[0], { ...base64.data[1], index: 2 }] }],
    ['a vector of strings', { data: [base64.data[0], { index: 1, embedding: ['0.1'] }] }],
    ['an empty vector', { data: [base64.data[0], { index: 1, embedding: [] }] }],
    [
      'base64 of a partial float',
      { data: [base64.data[0], { index: 1, embedding: Buffer.from([1, 2, 3]).toString('base64') }] },
    ],
  ];
  for (const [name, body] of invalid) {
    it(`rejects ${name} as invalid_response`, () =>
      assert.throws(
        () => fromOpenAIEmbeddingsResponse('provider-c', body, call),
        (error: unknown) => error instanceof ProviderError && error.failure === 'invalid_response',
      ));
  }
});

describe('decodeFloat32Base64', () => {
  it('reads little-endian float32 whatever the host byte order', () => {
    const values = [1, -2.5, 0.125, 3.4028234663852886e38];
    assert.deepEqual(decodeFloat32Base64(encode(values)), Float32Array.from(values));
    // The same bytes read big-endian would be different numbers: the order is really applied.
    assert.notDeepEqual(decodeFloat32Base64(encode(values, false)), Float32Array.from(values));
  });

  it('rounds to float32 precision, as the upstream stored it', () => {
    assert.deepEqual(Array.from(decodeFloat32Base64(encode([0.1])) ?? []), [Math.fround(0.1)]);
  });

  const bad: [string, string][] = [
    ['empty', ''],
    ['not base64', 'A6rJ$zRU'],
    ['length not a multiple of four characters', 'A6rJuzR'],
    ['NaN', encode([Number.NaN])],
    ['infinity', encode([Number.POSITIVE_INFINITY])],
  ];
  for (const [name, text] of bad) {
    it(`refuses ${name}`, () => assert.equal(decodeFloat32Base64(text), undefined));
  }
});

describe('decodeStrictBase64', () => {
  // What it replaced: a regular expression over the whole text.
  const reference = (text: string) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);

  it('accepts exactly what the base64 pattern accepts', () => {
    const chars = fc.constantFrom(...'AZaz09+/=-_ \n\t$.%é\u0000'.split(''));
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 16 }).map((a) => a.join('')),
        (text) => (decodeStrictBase64(text) !== undefined) === reference(text),
      ),
      { numRuns: 20_000 },
    );
  });

  it('decodes real base64, and refuses it with any one character replaced by a foreign one', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 48 }),
        fc.nat(70),
        fc.constantFrom('=', '-', '_', ' ', '\n', '$', 'A'),
        (bytes, at, char) => {
          const text = Buffer.from(bytes).toString('base64');
          const changed = text.slice(0, at) + char + text.slice(at + 1);
          assert.deepEqual(decodeStrictBase64(text), Buffer.from(bytes));
          assert.equal(decodeStrictBase64(changed) !== undefined, reference(changed));
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
