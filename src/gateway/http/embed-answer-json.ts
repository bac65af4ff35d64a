import type { EmbeddingVector } from '../providers/provider.ts';
import type { EmbedAnswer } from '../services/run-embed.ts';

/**
 * The /v1/embed answer as JSON text, in place of the route's schema serializer. That one
 * (fast-json-stringify) formats a vector one number at a time: about 120-170 µs for one
 * 1536-dimension vector, a third of the gateway's CPU per embeddings request. Here:
 *
 * - a vector of JSON numbers (Gemini, the simulator) is written with `join(',')`, the same text
 *   as JSON.stringify: for a finite number, ToString is exactly its JSON form (-0 included, which
 *   both write as 0);
 * - a float32 vector (OpenAI's base64) is written with nine significant digits, which name every
 *   float32 exactly (`Math.fround` of the number read back is the upstream's value, bit for bit).
 *   Its shortest double text, what `join` would write, has up to 17 digits that only describe the
 *   widening to double; nine cost half the time to format (163-206 against 368-474 µs per
 *   1536-dimension vector) and a third fewer bytes to send and parse (decision 0006).
 *
 * The vectors hold finite numbers only: every adapter refuses an upstream vector with anything
 * else, so no NaN or Infinity reaches the text. The fields are those of the EmbedResponse schema,
 * which still documents the route.
 */
export function embedAnswerJson(answer: EmbedAnswer): string {
  let vectors = '';
  for (let i = 0; i < answer.embeddings.length; i++) {
    vectors += `${i === 0 ? '[' : ',['}${vectorJson(answer.embeddings[i] as EmbeddingVector)}]`;
  }
  const usage = answer.usage;
  return (
    `{"id":${JSON.stringify(answer.id)},"provider":${JSON.stringify(answer.provider)},` +
    `"model":${JSON.stringify(answer.model)},"embeddings":[${vectors}],` +
    `"usage":{"tokensIn":${usage.tokensIn},"tokensOut":${usage.tokensOut},` +
    `"estimatedCost":${usage.estimatedCost},"estimated":${usage.estimated}},` +
    `"latencyMs":${answer.latencyMs}}`
  );
}

/** The numbers of one vector, comma-separated (see above for the two forms). */
function vectorJson(vector: EmbeddingVector): string {
  if (!(vector instanceof Float32Array)) return vector.join(',');
  let text = '';
  for (let i = 0; i < vector.length; i++)
    text += `${i === 0 ? '' : ','}${(vector[i] as number).toPrecision(9)}`;
  return text;
}
