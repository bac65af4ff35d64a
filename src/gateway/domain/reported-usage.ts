/** Token counts as an upstream reported them, normalised. */
export interface ReportedUsage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  /** Every output token, reasoning ones included. */
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}
