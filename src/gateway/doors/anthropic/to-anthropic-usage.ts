import { type ReportedUsage, splitCacheTokens } from '../../domain/reported-usage.ts';
import type { ResponseUsage } from '../../domain/usage.ts';

/**
 * The gateway's usage as Anthropic's `usage` object (API reference, "Create a Message": `Usage`).
 * The gateway's `tokensIn` includes the prompt cache's reads and writes (CONTRACT section 2);
 * Anthropic's `input_tokens` does not, so they are taken out of it and reported beside it, the
 * writes also split by lifetime (`cache_creation`). Counts from an OpenAI or Gemini upstream fit
 * the same shape: their cached tokens are reads, and they report no writes.
 */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export function toAnthropicUsage(usage: ResponseUsage): AnthropicUsage {
  const written = usage.tokensInCacheWrite;
  return anthropicUsage(
    usage.tokensIn - usage.tokensInCacheRead - written,
    usage.tokensOut,
    usage.tokensInCacheRead,
    written - usage.tokensInCacheWrite1h,
    usage.tokensInCacheWrite1h,
  );
}

/**
 * `message_start`'s usage: the prompt's counts when the upstream's first event had them (an
 * Anthropic upstream's message_start), zeros otherwise; `message_delta` carries the totals.
 */
export function toAnthropicStartUsage(prompt: ReportedUsage | undefined): AnthropicUsage {
  if (prompt === undefined) return anthropicUsage(0, 0, 0, 0, 0);
  const cache = splitCacheTokens(prompt);
  const cached = cache.cacheReadTokens + cache.cacheWrite5mTokens + cache.cacheWrite1hTokens;
  return anthropicUsage(
    prompt.inputTokens - cached,
    prompt.outputTokens,
    cache.cacheReadTokens,
    cache.cacheWrite5mTokens,
    cache.cacheWrite1hTokens,
  );
}

function anthropicUsage(
  uncached: number,
  output: number,
  read: number,
  write5m: number,
  write1h: number,
): AnthropicUsage {
  return {
    // Never below zero, whatever the counts an estimate and a report were summed from.
    input_tokens: Math.max(0, uncached),
    output_tokens: output,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
  };
}
