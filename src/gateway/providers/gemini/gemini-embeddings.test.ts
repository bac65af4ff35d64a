import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiJsonFixture } from '../../../../test/helpers/mock-gemini-server.ts';
import type { ProviderError } from '../provider-error.ts';
import {
  embedBatches,
  fromBatchEmbedResponse,
  GEMINI_EMBED_BATCH_LIMIT,
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
    const vectors = fromBatchEmbedResponse(geminiJsonFixture('batch-embed-contents.json'), 3, SLOT);
    assert.equal(vectors.length, 3);
    assert.ok(vectors.every((v) => v.length === 8));
    assert.equal(vectors[0]?.[0], -0.0135476);
    assert.equal(vectors[2]?.[7], -0.0063391);
  });

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
