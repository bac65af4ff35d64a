import type { Encoding } from './encoding-tokenizer.ts';
import type { AnswerLimits, TokenizedAnswer } from './token-count.ts';
import { Pacer } from './tokenizer-pacing.ts';
import { sliceForTokenizer } from './tokenizer-slices.ts';

/**
 * A simulated model's answer by token, as the tokenizer works it out: its tokens, the text left
 * when `maxTokens` cut it, and where its chunks end. Chunks are given as ends (offsets into the
 * text), not as strings: the text is already on the caller's side, and a 4 Mi-character answer
 * in chunks of four tokens made a million strings.
 */
export interface AnswerCut {
  tokens: number;
  /** The answer's text when `maxTokens` cut it; absent when it is whole. */
  cutText?: string;
  /** With `chunkTokens`: the offset in the text where each chunk ends. */
  chunkEnds?: number[];
}

const REPLACEMENT = '\uFFFD';
const TRAILING_REPLACEMENTS = /\uFFFD+$/;

/**
 * Tokenizes `content` slice by slice (see tokenizer-slices.ts), paced, up to `maxTokens`: tokens
 * are kept only as far as the cut needs them, a 1 Mi-character answer's token array costing
 * 8-16 MB.
 */
export async function cutAnswer(
  encoding: Encoding,
  content: string,
  { maxTokens, chunkTokens }: AnswerLimits,
): Promise<AnswerCut> {
  const pacer = new Pacer();
  const chunks = chunkTokens === undefined ? undefined : new ChunkCutter(encoding, chunkTokens);
  /** The first maxTokens tokens, decoded again for the text when the answer is cut. */
  const kept: number[] = [];
  let tokens = 0;
  let truncated = false;
  slices: for (const slice of sliceForTokenizer(content)) {
    if (chunks === undefined && maxTokens === undefined) {
      tokens += encoding.countTokens(slice.text);
    } else {
      for (const token of encoding.encode(slice.text)) {
        if (tokens === maxTokens) {
          truncated = true;
          break slices;
        }
        tokens++;
        if (maxTokens !== undefined) kept.push(token);
        chunks?.add(token);
      }
    }
    await pacer.after(slice.text.length);
  }
  const cut: AnswerCut = { tokens };
  // The cut may fall inside a character: the bytes of it before the cut are dropped from the text
  // (their tokens still count, as a vendor counts the tokens it sent).
  if (truncated) cut.cutText = encoding.decode(kept).replace(TRAILING_REPLACEMENTS, '');
  if (chunks !== undefined) cut.chunkEnds = chunks.end(truncated);
  return cut;
}

/** The answer a cut describes, its chunks sliced from the text. */
export function answerOf(content: string, cut: AnswerCut): TokenizedAnswer {
  const text = cut.cutText ?? content;
  const answer: TokenizedAnswer = { content: text, tokens: cut.tokens, truncated: cut.cutText !== undefined };
  if (cut.chunkEnds !== undefined) {
    let start = 0;
    answer.chunks = cut.chunkEnds.map((end) => {
      const chunk = text.slice(start, end);
      start = end;
      return chunk;
    });
  }
  return answer;
}

/**
 * Tokens in chunks of at least `chunkTokens`, each whole characters: a chunk that would end
 * inside a character takes the next tokens too. The chunks, joined, are the answer's text; what
 * is kept is where each ends.
 */
class ChunkCutter {
  readonly #encoding: Encoding;
  readonly #chunkTokens: number;
  readonly #ends: number[] = [];
  #end = 0;
  #pending: number[] = [];

  constructor(encoding: Encoding, chunkTokens: number) {
    this.#encoding = encoding;
    this.#chunkTokens = chunkTokens;
  }

  add(token: number): void {
    this.#pending.push(token);
    if (this.#pending.length < this.#chunkTokens) return;
    const text = this.#encoding.decode(this.#pending);
    if (text.endsWith(REPLACEMENT)) return;
    this.#close(text);
  }

  /** The ends, the last chunk whatever it ends with: an answer cut inside a character drops it, as its text does. */
  end(truncated: boolean): number[] {
    if (this.#pending.length > 0) {
      const text = this.#encoding.decode(this.#pending);
      this.#close(truncated ? text.replace(TRAILING_REPLACEMENTS, '') : text);
    }
    return this.#ends;
  }

  #close(text: string): void {
    // A character decodes to as many UTF-16 units as it has in the text (a lone surrogate, which
    // encodes as U+FFFD, too), so lengths of decoded chunks are offsets into it.
    this.#end += text.length;
    this.#ends.push(this.#end);
    this.#pending = [];
  }
}
