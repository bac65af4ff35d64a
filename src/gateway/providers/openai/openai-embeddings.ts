import type { ProviderSlot } from '../../../config/config-types.ts';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { EmbeddingPlace } from '../embedding-arrays.ts';
import { asCount, isRecord } from '../json-guards.ts';
import type { EmbedCall, EmbeddingVector, EmbedResult } from '../provider.ts';
import { invalidResponse } from './openai-error.ts';

export interface OpenAIEmbeddingsRequest {
  model: string;
  input: string[];
  encoding_format: 'base64';
  dimensions?: number;
}

/** `{"data": [{"embedding": [...]}]}`: where a number-array answer keeps its vectors. */
export const OPENAI_EMBEDDING_PLACE = new EmbeddingPlace('data', 'embedding');

/**
 * Base64 is about a quarter of the size of the float JSON and is what the official SDKs ask for
 * by default. A compatible server that ignores the field answers with float arrays, which
 * `fromOpenAIEmbeddingsResponse` accepts too.
 */
export function toOpenAIEmbeddingsRequest(call: EmbedCall): OpenAIEmbeddingsRequest {
  const request: OpenAIEmbeddingsRequest = {
    model: call.model,
    input: [...call.inputs],
    encoding_format: 'base64',
  };
  if (call.dimensions !== undefined) request.dimensions = call.dimensions;
  return request;
}

/**
 * An embeddings list to vectors in input order (`data` is sorted by `index`, which must name
 * each input exactly once). `usage.prompt_tokens` is the input count; embeddings have no output.
 */
export function fromOpenAIEmbeddingsResponse(
  slot: ProviderSlot,
  body: unknown,
  call: EmbedCall,
): EmbedResult {
  if (!isRecord(body) || !Array.isArray(body['data'])) {
    throw invalidResponse(slot, 'embeddings response has no data list');
  }
  const data: unknown[] = body['data'];
  if (data.length !== call.inputs.length) {
    throw invalidResponse(slot, `expected ${call.inputs.length} embeddings, got ${data.length}`);
  }
  const vectors: (EmbeddingVector | undefined)[] = new Array(data.length);
  for (const item of data) {
    if (!isRecord(item)) throw invalidResponse(slot, 'embedding is not an object');
    const index = asCount(item['index']);
    if (index === undefined || index >= data.length || vectors[index] !== undefined) {
      throw invalidResponse(slot, 'embedding index is missing, out of range or repeated');
    }
    const vector = readVector(item['embedding']);
    if (vector === undefined) throw invalidResponse(slot, 'embedding is neither base64 float32 nor numbers');
    vectors[index] = vector;
  }
  const model = body['model'];
  const usage = isRecord(body['usage']) ? asCount(body['usage']['prompt_tokens']) : undefined;
  return {
    model: typeof model === 'string' && model !== '' ? model : call.model,
    // Every slot was filled: the length matched and each index was distinct and in range.
    vectors: vectors as EmbeddingVector[],
    usage: usage === undefined ? undefined : { inputTokens: usage },
  };
}

function readVector(value: unknown): EmbeddingVector | undefined {
  if (typeof value === 'string') return decodeFloat32Base64(value);
  // Number arrays the provider kept as the upstream's checked bytes (../embedding-arrays.ts).
  if (value instanceof JsonNumberArray) return value;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    return value as number[];
  }
  return undefined;
}

/**
 * Decodes OpenAI's base64 embedding: packed IEEE-754 float32, little-endian. Read through a
 * DataView with the byte order stated, so the result does not depend on the host's endianness
 * (a Float32Array view of the bytes would). Kept as float32, which it is: the answer writes it
 * with the digits a float32 needs. Undefined when the text is not base64 of whole, finite float32s.
 */
export function decodeFloat32Base64(text: string): Float32Array | undefined {
  if (text.length === 0) return undefined;
  const bytes = decodeStrictBase64(text);
  if (bytes === undefined || bytes.length % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) {
    const value = view.getFloat32(i * 4, true);
    // NaN or infinity is no embedding, and would serialise as null to the caller.
    if (!Number.isFinite(value)) return undefined;
    vector[i] = value;
  }
  return vector;
}

/**
 * `text` decoded when it is base64 in the standard alphabet with `=` padding only at the end
 * (what `/^[A-Za-z0-9+/]*={0,2}$/` with a length that is a multiple of 4 accepts), else
 * undefined. Node's decoder skips characters outside its alphabet rather than failing, so a
 * text holding any decodes to fewer bytes than its length promises: comparing the two is the
 * check. It costs little beyond the decoding, where that regular expression took 30-70 µs over
 * a 1536-dimension embedding (8 KiB). Node also reads the URL-safe alphabet, refused here.
 */
export function decodeStrictBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || text.includes('-') || text.includes('_')) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === ((text.length - padding) * 3) >> 2 ? bytes : undefined;
}
