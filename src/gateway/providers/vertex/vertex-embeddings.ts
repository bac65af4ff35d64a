import type { ProviderSlot } from '../../../config/config-types.ts';
import { isRecord } from '../json-guards.ts';
import type { CallContext, EmbedCall, EmbeddingVector, EmbedResult } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import type { VertexCaller } from './vertex-caller.ts';

/**
 * Embeddings through the embedding models' `predict` (CONTRACT 6.4): `instances` of `{content}`,
 * `outputDimensionality` where asked; each prediction's `embeddings.values` and its
 * `statistics.token_count`. gemini-embedding models take one instance per call, the others up to
 * 250; calls go one after another, vectors in input order.
 */
export async function embedOnVertex(
  slot: ProviderSlot,
  caller: VertexCaller,
  call: EmbedCall,
  model: string,
  context: CallContext,
): Promise<EmbedResult> {
  const path = `${caller.publishers}/google/models/${encodeURIComponent(model)}:predict`;
  const batch = model.startsWith('gemini-embedding') ? 1 : 250;
  const vectors: EmbeddingVector[] = [];
  let inputTokens = 0;
  for (let start = 0; start < call.inputs.length; start += batch) {
    const texts = call.inputs.slice(start, start + batch);
    const body = {
      instances: texts.map((content) => ({ content })),
      ...(call.dimensions === undefined ? {} : { parameters: { outputDimensionality: call.dimensions } }),
    };
    const answer = caller.http.parseJson(await caller.send(path, { json: body }, context));
    const predictions = isRecord(answer) ? answer['predictions'] : undefined;
    if (!Array.isArray(predictions) || predictions.length !== texts.length)
      throw new ProviderError({
        slot,
        failure: 'invalid_response',
        detail: 'predict answered another count',
      });
    for (const prediction of predictions) {
      const embeddings = isRecord(prediction) ? prediction['embeddings'] : undefined;
      const values = isRecord(embeddings) ? embeddings['values'] : undefined;
      if (!Array.isArray(values) || !values.every((value) => typeof value === 'number'))
        throw new ProviderError({ slot, failure: 'invalid_response', detail: 'a prediction has no values' });
      vectors.push(values as number[]);
      const statistics = isRecord(embeddings) ? embeddings['statistics'] : undefined;
      if (isRecord(statistics) && typeof statistics['token_count'] === 'number')
        inputTokens += statistics['token_count'];
    }
  }
  return { model, vectors, usage: { inputTokens } };
}
