import { fnv1a } from '../../domain/hash-seed.ts';
import type { ChatMessage } from '../provider.ts';

/** Characters of one string the seed reads whole; a longer one is read in samples. */
const READ_WHOLE_CHARS = 64 * 1024;

/**
 * The seed of a simulated answer: the same messages give the same answer. Media parts are left
 * out (their data may be megabytes, and the text says enough), and a string longer than
 * READ_WHOLE_CHARS counts by its length and READ_WHOLE_CHARS characters spread evenly over it:
 * writing and hashing a 1 MiB prompt whole held the event loop for milliseconds per request
 * (docs/performance.md, the head-of-line case), for a choice among a few canned answers.
 */
export function simulatedSeed(messages: readonly ChatMessage[]): number {
  return fnv1a(JSON.stringify(messages, readForSeed));
}

function readForSeed(key: string, value: unknown): unknown {
  if (key === 'parts') return undefined;
  if (typeof value !== 'string' || value.length <= READ_WHOLE_CHARS) return value;
  const step = value.length / READ_WHOLE_CHARS;
  let hash = fnv1a(String(value.length));
  for (let i = 0; i < READ_WHOLE_CHARS; i++) {
    hash ^= value.charCodeAt(Math.floor(i * step));
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `sampled:${hash >>> 0}`;
}
