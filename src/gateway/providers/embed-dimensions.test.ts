import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulatedSlot } from '../../../test/helpers/simulated-slot.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import { toBatchEmbedRequest } from './gemini/gemini-embeddings.ts';
import { toOpenAIEmbeddingsRequest } from './openai/openai-embeddings.ts';
import { SimulatedProvider } from './simulated/simulated-provider.ts';

/** Vectors are what is under test here, not their token counts. */
const countingNothing: Tokenizer = {
  count: async () => 0,
  tokenizeAnswer: async (content) => ({ content, tokens: 0, truncated: false }),
};

/** `dimensions` of an embed call, in each upstream's own word for it, and only when asked. */
describe('embedding dimensions per adapter', () => {
  it('OpenAI sends dimensions', () => {
    assert.equal(toOpenAIEmbeddingsRequest({ model: 'm', inputs: ['a'], dimensions: 256 }).dimensions, 256);
    assert.equal('dimensions' in toOpenAIEmbeddingsRequest({ model: 'm', inputs: ['a'] }), false);
  });

  it('Gemini sends outputDimensionality on every request of the batch', () => {
    const body = toBatchEmbedRequest('text-embedding-004', ['a', 'b'], 64);
    assert.deepEqual(
      body.requests.map((r) => r.outputDimensionality),
      [64, 64],
    );
    assert.equal('outputDimensionality' in (toBatchEmbedRequest('m', ['a']).requests[0] ?? {}), false);
  });

  it('the simulator shortens its vectors, and never lengthens them', async () => {
    const provider = new SimulatedProvider(simulatedSlot(), countingNothing);
    const context = { signal: new AbortController().signal, requestId: 'r', attempt: 0, metadata: undefined };
    const short = await provider.embed({ model: 'embed', inputs: ['a b'], dimensions: 8 }, context);
    assert.equal(short.vectors[0]?.length, 8);
    const capped = await provider.embed({ model: 'embed', inputs: ['a b'], dimensions: 4096 }, context);
    assert.equal(capped.vectors[0]?.length, 32);
  });
});
