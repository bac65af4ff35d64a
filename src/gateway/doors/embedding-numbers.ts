import { JsonNumberArray } from '../domain/json-number-array.ts';
import { FLOAT32_JSON_MAX_BYTES, writeFloat32Json } from './float32-json.ts';

/**
 * An embedding's numbers as they go between its brackets in an answer (the native /v1/embed and
 * the OpenAI door's `float`), each form written its cheapest exact way:
 *
 * - numbers read from JSON (the simulator, an odd upstream body parsed whole): `join(',')`, the
 *   same text as JSON.stringify (for a finite number, ToString is exactly its JSON form);
 * - float32 (OpenAI's base64): `writeFloat32Json`, at most nine significant digits, which name
 *   every float32 exactly (decision 0006), straight into the bytes sent;
 * - a JSON number array an upstream sent (OpenAI-compatible servers, Gemini): its bytes as they came, already
 *   checked to be nothing but JSON numbers (JsonNumberArray).
 *
 * Every form holds finite numbers only (each adapter refuses anything else), so no NaN or
 * Infinity reaches the text.
 */
export type EmbeddingNumbers = string | Float32Array | Uint8Array;

export function toEmbeddingNumbers(vector: number[] | Float32Array | JsonNumberArray): EmbeddingNumbers {
  if (vector instanceof Float32Array) return vector;
  if (vector instanceof JsonNumberArray) return vector.elements;
  return vector.join(',');
}

/** The most bytes `writeEmbeddingNumbers` may write for them (their text is ASCII). */
export function embeddingNumbersMaxBytes(numbers: EmbeddingNumbers): number {
  return numbers instanceof Float32Array ? numbers.length * FLOAT32_JSON_MAX_BYTES : numbers.length;
}

/** Writes the numbers into `target` from `offset`; returns the offset after them. */
export function writeEmbeddingNumbers(target: Buffer, offset: number, numbers: EmbeddingNumbers): number {
  if (typeof numbers === 'string') return offset + target.write(numbers, offset, 'latin1');
  if (numbers instanceof Float32Array) return writeFloat32Json(target, offset, numbers);
  target.set(numbers, offset);
  return offset + numbers.length;
}
