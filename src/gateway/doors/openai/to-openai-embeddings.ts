import type { JsonNumberArray } from '../../domain/json-number-array.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import { answerBytes, answerPayload } from '../answer-bytes.ts';
import {
  type EmbeddingNumbers,
  embeddingNumbersMaxBytes,
  toEmbeddingNumbers,
  writeEmbeddingNumbers,
} from '../embedding-numbers.ts';

/** What the door reads of the embed use case's answer. */
export interface EmbeddedTexts {
  model: string;
  embeddings: readonly (number[] | Float32Array | JsonNumberArray)[];
  usage: ResponseUsage;
}

/**
 * The `CreateEmbeddingResponse` body as UTF-8 JSON (text or bytes, see answer-bytes.ts): `{object: 'list', data: [{object:
 * 'embedding', index, embedding}], model, usage: {prompt_tokens, total_tokens}}`. With `float`,
 * each vector is written in the form it came, as the native route writes it
 * (`embedding-numbers.ts`); with `base64`, each vector is its float32 values, little-endian, in
 * base64, which is what OpenAI sends and what its SDKs decode (they ask for base64 by default).
 */
export function embeddingsBody(answer: EmbeddedTexts, format: 'float' | 'base64'): string | Buffer {
  const tail =
    `],"model":${JSON.stringify(answer.model)},` +
    `"usage":{"prompt_tokens":${answer.usage.tokensIn},"total_tokens":${answer.usage.tokensIn}}}`;
  // Each embedding as what goes between its quotes (base64 text) or its brackets (numbers).
  const items: EmbeddingNumbers[] = answer.embeddings.map((vector) =>
    format === 'base64' ? float32Base64(vector) : toEmbeddingNumbers(vector),
  );
  const quote = format === 'base64' ? QUOTE : OPEN_BRACKET;
  const unquote = format === 'base64' ? QUOTE : CLOSE_BRACKET;
  // The model name may hold any character: 3 bytes of UTF-8 per UTF-16 unit of the tail.
  let size = HEAD.length + 3 * tail.length;
  for (const item of items) size += ITEM_BYTES + embeddingNumbersMaxBytes(item);
  const out = answerBytes(size);
  let pos = out.write(HEAD, 0, 'latin1');
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as EmbeddingNumbers;
    if (index > 0) out[pos++] = COMMA;
    pos += out.write(`{"object":"embedding","index":${index},"embedding":`, pos, 'latin1');
    out[pos++] = quote;
    // Base64 and numbers' text are ASCII.
    pos = writeEmbeddingNumbers(out, pos, item);
    out[pos++] = unquote;
    out[pos++] = CLOSE_BRACE;
  }
  pos += out.write(tail, pos, 'utf8');
  return answerPayload(out, pos);
}

const HEAD = '{"object":"list","data":[';
/** An item's fixed text, its index, brackets and comma: well under this. */
const ITEM_BYTES = 64;
const COMMA = 44;
const QUOTE = 34;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const CLOSE_BRACE = 125;

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A vector as packed little-endian float32 in base64 (numbers from JSON are rounded to float32). */
export function float32Base64(vector: number[] | Float32Array | JsonNumberArray): string {
  const floats =
    vector instanceof Float32Array
      ? vector
      : Array.isArray(vector)
        ? Float32Array.from(vector)
        : vector.toFloat32Array();
  if (LITTLE_ENDIAN_HOST)
    return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
  const bytes = Buffer.allocUnsafe(floats.length * 4);
  for (let i = 0; i < floats.length; i++) bytes.writeFloatLE(floats[i] as number, i * 4);
  return bytes.toString('base64');
}
