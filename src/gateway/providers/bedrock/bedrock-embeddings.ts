import type { ProviderSlot } from '../../../config/config-types.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type { CallContext, EmbedCall, EmbeddingVector, EmbedResult } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import type { BedrockCaller } from './bedrock-caller.ts';
import { modelPath } from './bedrock-relay.ts';

/** Cohere's embed models take at most this many texts in one InvokeModel. */
const COHERE_BATCH = 96;

/**
 * Embeddings through InvokeModel (CONTRACT 6.4), in each model family's own body: Amazon Titan
 * takes one `inputText` per call (`dimensions` where asked) and counts its tokens; Cohere takes
 * up to 96 `texts` per call and counts none (the gateway then estimates). Calls go one after
 * another, vectors in input order.
 */
export async function embedOnBedrock(
  slot: ProviderSlot,
  caller: BedrockCaller,
  call: EmbedCall,
  modelId: string,
  context: CallContext,
): Promise<EmbedResult> {
  const path = `${modelPath(modelId)}/invoke`;
  const vectors: EmbeddingVector[] = [];
  if (modelId.includes('cohere.')) {
    for (let start = 0; start < call.inputs.length; start += COHERE_BATCH) {
      const texts = call.inputs.slice(start, start + COHERE_BATCH);
      const body = { texts, input_type: 'search_document', embedding_types: ['float'] };
      const answer = safeJson((await caller.send(path, json(body), context)).text);
      const embeddings = isRecord(answer) ? answer['embeddings'] : undefined;
      const floats = isRecord(embeddings) ? embeddings['float'] : embeddings;
      if (!Array.isArray(floats) || floats.length !== texts.length || !floats.every(isNumbers))
        throw invalid(slot, 'Cohere answer has no embeddings for every text');
      vectors.push(...(floats as number[][]));
    }
    return { model: modelId, vectors, usage: undefined };
  }
  let inputTokens = 0;
  for (const inputText of call.inputs) {
    const body = call.dimensions === undefined ? { inputText } : { inputText, dimensions: call.dimensions };
    const answer = safeJson((await caller.send(path, json(body), context)).text);
    if (!isRecord(answer) || !isNumbers(answer['embedding']))
      throw invalid(slot, 'Titan answer has no embedding');
    vectors.push(answer['embedding'] as number[]);
    if (typeof answer['inputTextTokenCount'] === 'number') inputTokens += answer['inputTextTokenCount'];
  }
  return { model: modelId, vectors, usage: { inputTokens } };
}

function json(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body));
}

function isNumbers(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

function invalid(slot: ProviderSlot, detail: string): ProviderError {
  return new ProviderError({ slot, failure: 'invalid_response', detail });
}
