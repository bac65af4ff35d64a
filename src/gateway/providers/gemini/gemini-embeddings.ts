import type { ProviderSlot } from '../../../config/config-types.ts';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { EmbeddingPlace } from '../embedding-arrays.ts';
import { isRecord } from '../json-guards.ts';
import { invalid } from './from-gemini-response.ts';
import { geminiModelResource } from './gemini-model.ts';

/** batchEmbedContents refuses more ("at most 100 requests can be in one batch"). */
export const GEMINI_EMBED_BATCH_LIMIT = 100;

export interface GeminiBatchEmbedRequest {
  requests: { model: string; content: { parts: { text: string }[] }; outputDimensionality?: number }[];
}

/** Splits inputs into consecutive batches the endpoint accepts; order is kept. */
export function embedBatches(inputs: readonly string[], limit = GEMINI_EMBED_BATCH_LIMIT): string[][] {
  const batches: string[][] = [];
  for (let start = 0; start < inputs.length; start += limit) {
    batches.push(inputs.slice(start, start + limit));
  }
  return batches;
}

/**
 * The body of `models/{model}:batchEmbedContents`. Each request names the model again, as
 * `models/{id}`: the API requires it to match the one in the path.
 */
export function toBatchEmbedRequest(
  model: string,
  inputs: readonly string[],
  dimensions?: number,
): GeminiBatchEmbedRequest {
  const resource = geminiModelResource(model);
  // `outputDimensionality` truncates the vector (models that support it); absent, the model's own.
  const extra = dimensions === undefined ? {} : { outputDimensionality: dimensions };
  return { requests: inputs.map((text) => ({ model: resource, content: { parts: [{ text }] }, ...extra })) };
}

/** `{"embeddings": [{"values": [...]}]}`: where batchEmbedContents keeps its vectors. */
export const GEMINI_EMBEDDING_PLACE = new EmbeddingPlace('embeddings', 'values');

/**
 * `{embeddings: [{values: number[]}]}`, one per request and in the same order. Gemini reports no
 * token usage for embeddings, so the caller returns none and the gateway estimates it. A vector
 * may be the upstream's checked bytes (JsonNumberArray, from `../embedding-arrays.ts`), which the
 * answer copies as they came; a body the byte walker did not take is parsed whole and its numbers
 * are checked here.
 */
export function fromBatchEmbedResponse(
  body: unknown,
  expected: number,
  slot: ProviderSlot,
): (number[] | JsonNumberArray)[] {
  if (!isRecord(body)) throw invalid(slot, 'response is not an object');
  const embeddings = body['embeddings'];
  if (!Array.isArray(embeddings)) throw invalid(slot, 'embeddings is not an array');
  if (embeddings.length !== expected) throw invalid(slot, 'embedding count does not match the inputs');
  return embeddings.map((embedding) => {
    const values = isRecord(embedding) ? embedding['values'] : undefined;
    // Non-empty JSON numbers below 10^38, checked as they were read.
    if (values instanceof JsonNumberArray) return values;
    if (!Array.isArray(values) || values.length === 0) throw invalid(slot, 'embedding has no values');
    if (!values.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw invalid(slot, 'embedding values are not numbers');
    }
    return values as number[];
  });
}
