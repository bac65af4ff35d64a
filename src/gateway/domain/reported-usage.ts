/** Token counts as an upstream reported them, normalised. */
export interface ReportedUsage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  /** Every output token, reasoning ones included. */
  outputTokens: number;
  /** Input tokens read from the upstream's prompt cache (part of `inputTokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache, 5-minute and 1-hour writes together (part of `inputTokens`). */
  cacheWriteTokens?: number;
  /**
   * Of `cacheWriteTokens`, those written for an hour (Anthropic's `ephemeral_1h_input_tokens`); the
   * rest are 5-minute writes, as are the writes of an upstream that names no lifetime.
   */
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

/** An answer's prompt-cache tokens, the three ways they are priced (CONTRACT 5.3). */
export interface PromptCacheTokens {
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

/** No prompt-cache tokens: a failed call's, or an estimate's (a tokenizer knows nothing of the cache). */
export const NO_CACHE_TOKENS: PromptCacheTokens = Object.freeze({
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
});

/**
 * The prompt-cache tokens of a report, kept within what it says: reads and writes never exceed the
 * input they are part of, and 1-hour writes never exceed the writes, so an upstream's inconsistent
 * counts cannot price more tokens than it reported.
 */
export function splitCacheTokens(usage: ReportedUsage): PromptCacheTokens {
  const read = Math.min(usage.cacheReadTokens ?? 0, usage.inputTokens);
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - read);
  const forAnHour = Math.min(usage.cacheWrite1hTokens ?? 0, written);
  return { cacheReadTokens: read, cacheWrite5mTokens: written - forAnHour, cacheWrite1hTokens: forAnHour };
}
