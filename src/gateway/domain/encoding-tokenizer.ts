import { answerOf, cutAnswer } from './answer-cut.ts';
import type { Tokenizer } from './token-count.ts';
import { Pacer } from './tokenizer-pacing.ts';
import { sliceForTokenizer } from './tokenizer-slices.ts';

/**
 * Token counting that answers in bounded time and lets other work run, for any input up to
 * MAX_BODY_BYTES, over a synchronous BPE library (`Encoding`):
 * - text is fed to the library in bounded slices (see tokenizer-slices.ts), so no single
 *   library call is quadratic in the input;
 * - the work yields every YIELD_EVERY_CHARS characters, so that several calls interleave;
 * - up to EXACT_COUNT_CHARS characters per call are counted exactly; past that, evenly spaced
 *   slices adding up to about EXACT_COUNT_CHARS are counted and the total is scaled from them.
 * The gateway runs it on the tokenizer's own thread (src/gateway/tokenizer/).
 */
export interface Encoding {
  encode(text: string): number[];
  countTokens(text: string): number;
  /**
   * Text of whole tokens, as a one-shot decoder gives it: the first bytes of a character the
   * tokens end inside decode as U+FFFD, and nothing is carried over to the next call.
   */
  decode(tokens: readonly number[]): string;
}

/**
 * Characters counted exactly in one call. The slowest text for gpt-tokenizer (random CJK, one
 * repeated letter) tokenizes at about 1-2 MB/s on this project's 2-core reference box, so this
 * bounds a count to a few hundred milliseconds; ordinary prose of this size takes ~15 ms.
 */
export const EXACT_COUNT_CHARS = 256 * 1024;

/** Slicing a character costs about this many times less than tokenizing it. */
const SCAN_COST_RATIO = 16;

/** The gateway's Tokenizer in this thread, over `encoding`. */
export function encodingTokenizer(encoding: Encoding): Tokenizer {
  return {
    count: (texts) => countTokens(encoding, typeof texts === 'string' ? [texts] : texts),
    tokenizeAnswer: async (content, limits) => answerOf(content, await cutAnswer(encoding, content, limits)),
  };
}

/** Tokens of each text counted separately, summed: exact up to EXACT_COUNT_CHARS in all, sampled past it. */
export async function countTokens(encoding: Encoding, texts: readonly string[]): Promise<number> {
  const totalChars = texts.reduce((sum, text) => sum + text.length, 0);
  // Count one slice in `stride`; with stride 1 every slice is counted and the result is exact.
  const stride = Math.max(1, Math.ceil(totalChars / EXACT_COUNT_CHARS));
  const pacer = new Pacer();
  let total = 0;
  for (const text of texts) {
    let tokens = 0;
    let countedChars = 0;
    let index = 0;
    for (const slice of sliceForTokenizer(text)) {
      if (index++ % stride !== 0) {
        // Skipping still scans the slice for boundaries: cheap per character, not on 4 MiB.
        await pacer.after(slice.text.length / SCAN_COST_RATIO);
        continue;
      }
      tokens += encoding.countTokens(slice.text);
      countedChars += slice.text.length;
      await pacer.after(slice.text.length);
    }
    total += stride === 1 || countedChars === 0 ? tokens : Math.round((tokens * text.length) / countedChars);
  }
  return total;
}
