/**
 * Cuts text into slices the BPE tokenizer handles in bounded time. gpt-tokenizer merges each
 * pre-token (a word, a run of spaces, a run of one letter) in time quadratic in its length, so a
 * single 100 kB word stalls the event loop for seconds. Slices end where o200k_base's
 * pre-tokenizer would end a piece anyway, so counting slice by slice gives the same total as
 * counting the whole text; only a stretch longer than MAX_RUN_CHARS without such a place is cut
 * mid-piece, and there the count becomes an estimate (typically within a token per cut).
 */

/**
 * Longest stretch fed to the tokenizer without a natural boundary. Real words and the longest
 * o200k_base tokens are far shorter; 4 MiB of one letter then tokenizes in about a second on a slow core, not hours.
 */
export const MAX_RUN_CHARS = 32;

/** Slices are grouped up to this length so a typical slice carries many words per library call. */
export const MAX_SLICE_CHARS = 8192;

export interface TextSlice {
  text: string;
  /** True when this slice ends mid-piece: its count may differ from the whole text's. */
  cut: boolean;
}

const SPACE = 0x20;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const WHITESPACE = /\s/;

/**
 * A natural boundary is a place where o200k_base's pre-tokenizer starts a new piece whether or
 * not the text goes on: no pre-token pattern runs across it, and none looks ahead past it.
 * - a space after a non-whitespace character (words take their leading space, never a trailing one);
 * - a non-whitespace character after a line break;
 * - a space after a line break when a non-whitespace character follows it (a line break run
 *   could otherwise swallow the space and a later line break).
 */
function isNaturalBoundary(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  const before = text.charCodeAt(index - 1);
  const afterLineBreak = before === LINE_FEED || before === CARRIAGE_RETURN;
  if (code === SPACE) {
    if (!afterLineBreak) return !WHITESPACE.test(text.charAt(index - 1));
    return index + 1 < text.length && !WHITESPACE.test(text.charAt(index + 1));
  }
  return afterLineBreak && !WHITESPACE.test(text.charAt(index));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function* sliceForTokenizer(text: string): Generator<TextSlice> {
  let start = 0;
  let lastBoundary = 0;
  for (let index = 1; index < text.length; index++) {
    if (isNaturalBoundary(text, index)) lastBoundary = index;
    if (index - Math.max(start, lastBoundary) >= MAX_RUN_CHARS) {
      // Never split a surrogate pair: half a character would count as replacement bytes.
      const cut = isLowSurrogate(text.charCodeAt(index)) ? index + 1 : index;
      yield { text: text.slice(start, cut), cut: true };
      start = cut;
      lastBoundary = cut;
      index = cut;
    } else if (index - start >= MAX_SLICE_CHARS && lastBoundary > start) {
      yield { text: text.slice(start, lastBoundary), cut: false };
      start = lastBoundary;
    }
  }
  if (start < text.length) yield { text: text.slice(start), cut: false };
}
