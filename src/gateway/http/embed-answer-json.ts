import type { EmbeddingVector } from '../providers/provider.ts';
import type { EmbedAnswer } from '../services/run-embed.ts';
import { FLOAT32_JSON_MAX_BYTES, writeFloat32Json } from './float32-json.ts';

/**
 * The /v1/embed answer as UTF-8 JSON bytes, in place of the route's schema serializer. That one
 * (fast-json-stringify) formats a vector one number at a time: about 120-170 µs for one
 * 1536-dimension vector, a third of the gateway's CPU per embeddings request. Here:
 *
 * - a vector of JSON numbers (Gemini, the simulator) is written with `join(',')`, the same text
 *   as JSON.stringify: for a finite number, ToString is exactly its JSON form (-0 included, which
 *   both write as 0);
 * - a float32 vector (OpenAI's base64) is written by `writeFloat32Json` in at most nine
 *   significant digits, which name every float32 exactly (decision 0006), straight into the
 *   bytes sent: no string per number, and no UTF-8 encoding of the vector's text afterwards.
 *
 * The vectors hold finite numbers only: every adapter refuses an upstream vector with anything
 * else, so no NaN or Infinity reaches the text. The fields are those of the EmbedResponse schema,
 * which still documents the route.
 */
export function embedAnswerJson(answer: EmbedAnswer): Buffer {
  const head =
    `{"id":${JSON.stringify(answer.id)},"provider":${JSON.stringify(answer.provider)},` +
    `"model":${JSON.stringify(answer.model)},"embeddings":[`;
  const usage = answer.usage;
  const tail =
    `],"usage":{"tokensIn":${usage.tokensIn},"tokensOut":${usage.tokensOut},` +
    `"estimatedCost":${usage.estimatedCost},"estimated":${usage.estimated}},` +
    `"latencyMs":${answer.latencyMs}}`;
  const vectors = answer.embeddings.map(numbersOrText);
  // A UTF-16 code unit takes at most 3 bytes of UTF-8; a vector adds its brackets and a comma.
  let size = 3 * (head.length + tail.length);
  for (const vector of vectors) {
    size += 3 + (typeof vector === 'string' ? vector.length : vector.length * FLOAT32_JSON_MAX_BYTES);
  }
  const out = Buffer.allocUnsafe(size);
  let pos = out.write(head, 0, 'utf8');
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0) out[pos++] = COMMA;
    out[pos++] = OPEN_BRACKET;
    const vector = vectors[i] as string | Float32Array;
    pos =
      typeof vector === 'string'
        ? pos + out.write(vector, pos, 'latin1')
        : writeFloat32Json(out, pos, vector);
    out[pos++] = CLOSE_BRACKET;
  }
  pos += out.write(tail, pos, 'utf8');
  return out.subarray(0, pos);
}

const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** A float32 vector as it is; a vector of JSON numbers as its text (ASCII only). */
function numbersOrText(vector: EmbeddingVector): string | Float32Array {
  return vector instanceof Float32Array ? vector : vector.join(',');
}
