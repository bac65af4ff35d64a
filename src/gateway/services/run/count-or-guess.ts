import { guessTokens } from '../../limits/estimate-usage.ts';

/**
 * A token count for an answer's usage, or the characters' guess when the tokenizer cannot count
 * (its thread died twice running): the upstream has answered, the answer must still go out and be
 * recorded, and either figure is flagged as an estimate.
 */
export async function countOrGuess(
  count: () => Promise<number>,
  texts: () => readonly string[],
): Promise<number> {
  try {
    return await count();
  } catch {
    return guessTokens(texts());
  }
}
