import type { AnswerCut } from '../domain/answer-cut.ts';
import type { AnswerLimits } from '../domain/token-count.ts';

/**
 * What the main thread asks of the tokenizer's thread (tokenizer-thread.ts, tokenizer-worker.ts).
 * Each message carries an array: the requests, or the replies, of one turn of the sender's event loop.
 */
export type TokenizerRequest =
  | { id: number; op: 'count'; texts: readonly string[] }
  | { id: number; op: 'answer'; content: string; limits: AnswerLimits };

/** The answer to the request of the same id; `message` when the library failed on the input. */
export type TokenizerReply =
  | { id: number; ok: true; value: number | AnswerCut }
  | { id: number; ok: false; message: string };
