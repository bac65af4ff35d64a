import { seededRandom } from '../../src/gateway/domain/hash-seed.ts';

/**
 * `length` UTF-16 code units drawn from `span` consecutive codes from `from` (printable ASCII by
 * default), the same for the same seed: random text that tokenizes slowly, for bounds tests.
 */
export function randomText(length: number, seed: number, from = 33, span = 94): string {
  const random = seededRandom(seed);
  const codes = new Uint16Array(length);
  for (let i = 0; i < length; i++) codes[i] = from + Math.floor(random() * span);
  return new TextDecoder('utf-16le').decode(codes);
}
