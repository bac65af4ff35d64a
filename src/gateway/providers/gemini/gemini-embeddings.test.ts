import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiFixture, geminiJsonFixture } from '../../../../test/helpers/mock-gemini-server.ts';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { parseWithLiftedEmbeddings } from '../embedding-arrays.ts';
import type { ProviderError } from '../provider-error.ts';
import {
  embedBatches,
  fromBatchEmbedResponse,
  GEMINI_EMBED_BATCH_LIMIT,
  GEMINI_EMBEDDING_PLACE,
  toBatchEmbedRequest,
} from './gemini-embeddings.ts';

const SLOT = 'provider-a';

describe('Gemini batch embeddings', () => {
  it('builds one request per input, each naming the model as models/{id}', () => {
    for (const model of ['gemini-embedding-001', 'models/gemini-embedding-001']) {
      assert.deepEqual(toBatchEmbedRequest(model, ['a', 'b']), {
        requests: [
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] } },
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] } },
        ],
      });
    }
  });

  it('splits inputs into batches of at most 100, in order', () => {
    assert.equal(GEMINI_EMBED_BATCH_LIMIT, 100);
    const inputs = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const batches = embedBatches(inputs);
    assert.deepEqual(
      batches.map((b) => b.length),
      [100, 100, 50],
    );
    assert.deepEqual(batches.flat(), inputs);
    assert.deepEqual(
      embedBatches(inputs.slice(0, 100)).map((b) => b.length),
      [100],
    );
    assert.deepEqual(embedBatches([]), []);
  });

  it('reads the recorded batchEmbedContents response', () => {
    const vectors = fromBatchEmbedResponse(
      geminiJsonFixture('batch-embed-contents.json'),
      3,
      SLOT,
    ) as number[][];
    assert.equal(vectors.length, 3);
    assert.ok(vectors.every((v) => v.length === 8));
    assert.equal(vectors[0]?.[0], -0.0135476);
    assert.equal(vectors[2]?.[7], -0.0063391);
  });

  /** What the provider does with a 2xx body: the byte walker first, the whole-body parse if it steps aside. */
  function fromBytes(text: string, expected: number) {
    const bytes = Buffer.from(text);
    return fromBatchEmbedResponse(
      parseWithLiftedEmbeddings(bytes, GEMINI_EMBEDDING_PLACE) ?? JSON.parse(text),
      expected,
      SLOT,
    );
  }

  const elementsText = (vector: unknown) => {
    assert.ok(vector instanceof JsonNumberArray, 'kept as the upstream bytes');
    return Buffer.from(vector.elements).toString('latin1');
  };

  it('keeps each values array of the recorded response as the bytes Google sent, in order', () => {
    const text = geminiFixture('batch-embed-contents.json');
    const vectors = fromBytes(text, 3);
    const sent = [...text.matchAll(/"values": \[([^\]]*)\]/g)].map((match) => match[1]);
    assert.equal(sent.length, 3);
    assert.deepEqual(vectors.map(elementsText), sent);
    assert.deepEqual(
      vectors.map((vector) => vector.length),
      [8, 8, 8],
    );
  });

  it('keeps spellings a parse would lose (exponents, -0, trailing zeros, 17 digits and more)', () => {
    const first = '-0, 1E-7, 0.10, 0.1000000000000000055511151231257827';
    const second = '\n        3.0517578125e-05,\n        -0.0135476\n      ';
    const text = `{\n  "embeddings": [\n    {\n      "values": [${first}]\n    },\n    {\n      "values": [${second}]\n    }\n  ]\n}\n`;
    const vectors = fromBytes(text, 2);
    assert.deepEqual(vectors.map(elementsText), [first, second]);
    assert.deepEqual(
      vectors.map((vector) => vector.length),
      [4, 2],
    );
  });

  /**
   * Odd bodies, most of which the byte walker leaves to the whole-body parse: each gives what
   * parsing it whole gave before, the same numbers or the same invalid_response.
   */
  const odd: [string, string, number][] = [
    ['an escaped key', '{"embeddings":[{"value\\u0073":[0.5,1]}]}', 1],
    ['an escaped list key', '{"embedding\\u0073":[{"values":[0.5,1]}]}', 1],
    ['a repeated values key', '{"embeddings":[{"values":[1],"values":[0.25,2]}]}', 1],
    ['a repeated embeddings key', '{"embeddings":[{"values":[1]}],"embeddings":[{"values":[2]}]}', 1],
    ['a number past 10^38', '{"embeddings":[{"values":[1e39,0.5]}]}', 1],
    ['a number below 10^-400', '{"embeddings":[{"values":[1e-400,0.5]}]}', 1],
    ['a number past the double range', '{"embeddings":[{"values":[1e400]}]}', 1],
    ['an empty array', '{"embeddings":[{"values":[]}]}', 1],
    ['a string among the numbers', '{"embeddings":[{"values":[1,"2"]}]}', 1],
    ['a nested array', '{"embeddings":[{"values":[[1],[2]]}]}', 1],
    ['values that are no array', '{"embeddings":[{"values":{"0":1}}]}', 1],
    ['values null', '{"embeddings":[{"values":null}]}', 1],
    ['an embedding without values', '{"embeddings":[{"value":[1]}]}', 1],
    ['embeddings that are no list', '{"embeddings":{"values":[1]}}', 1],
    ['fewer embeddings than inputs', '{"embeddings":[{"values":[1]}]}', 2],
    ['more embeddings than inputs', '{"embeddings":[{"values":[1]},{"values":[2]}]}', 1],
    ['a body that is a list', '[{"values":[1]}]', 1],
  ];
  for (const [name, text, expected] of odd) {
    it(`gives ${name} what the whole-body parse gives`, () => {
      let before: unknown;
      try {
        before = fromBatchEmbedResponse(JSON.parse(text), expected, SLOT);
      } catch (error) {
        before = error;
      }
      if (before instanceof Error) {
        assert.throws(
          () => fromBytes(text, expected),
          (e: ProviderError) => e.failure === 'invalid_response' && e.message === before.message,
        );
      } else {
        // A client reads the numbers: the kept bytes read as JSON are the numbers parsed before.
        const read = fromBytes(text, expected).map((vector) =>
          vector instanceof JsonNumberArray ? JSON.parse(`[${elementsText(vector)}]`) : vector,
        );
        assert.deepEqual(read, before);
      }
    });
  }

  const broken: [string, unknown, number][] = [
    ['a non-object body', null, 1],
    ['no embeddings array', { embedding: { values: [1] } }, 1],
    ['fewer embeddings than inputs', geminiJsonFixture('batch-embed-contents.json'), 4],
    ['an embedding without values', { embeddings: [{}] }, 1],
    ['non-numeric values', { embeddings: [{ values: [1, '2'] }] }, 1],
  ];
  for (const [name, body, expected] of broken) {
    it(`rejects ${name} as invalid_response`, () => {
      assert.throws(
        () => fromBatchEmbedResponse(body, expected, SLOT),
        (e: ProviderError) => e.failure === 'invalid_response',
      );
    });
  }
});
