import { fnv1a } from '../../domain/hash-seed.ts';

/**
 * A feature-hashed bag of lower-cased words, L2-normalised: equal texts get equal vectors and
 * texts sharing words point in similar directions, which is enough to exercise a vector store.
 */
export function simulateEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text];
  for (const word of words) {
    const hash = fnv1a(word);
    const index = hash % dimensions;
    vector[index] = (vector[index] ?? 0) + (hash >>> 31 === 1 ? -1 : 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  if (norm === 0) {
    vector[fnv1a(text) % dimensions] = 1;
    return vector;
  }
  return vector.map((v) => v / norm);
}
