// Fields a chat completion and its stream chunks share, read the same way for both.

import { asCount, isRecord } from '../json-guards.ts';
import type { FinishReason, ReportedUsage } from '../provider.ts';

/**
 * Chat Completions `usage` to the gateway's counts. OpenAI's `prompt_tokens` already includes
 * cached tokens and `completion_tokens` already includes reasoning tokens, which is exactly the
 * gateway's convention, so the details are copied beside them and never added.
 *
 * Usage that is absent or unreadable is `undefined` rather than an error: the answer itself is
 * still good, and the gateway then counts tokens itself and marks them estimated.
 */
export function readOpenAIUsage(value: unknown): ReportedUsage | undefined {
  if (!isRecord(value)) return undefined;
  const inputTokens = asCount(value['prompt_tokens']);
  // Embeddings report no completion_tokens; chat usage without it is incomplete.
  const outputTokens = asCount(value['completion_tokens']);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const usage: ReportedUsage = { inputTokens, outputTokens };
  const prompt = value['prompt_tokens_details'];
  if (isRecord(prompt)) {
    const cached = asCount(prompt['cached_tokens']);
    if (cached !== undefined) usage.cacheReadTokens = cached;
    const written = asCount(prompt['cache_write_tokens']);
    if (written !== undefined) usage.cacheWriteTokens = written;
  }
  const completion = value['completion_tokens_details'];
  if (isRecord(completion)) {
    const reasoning = asCount(completion['reasoning_tokens']);
    if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  }
  return usage;
}

/**
 * `finish_reason` to the gateway's reasons. `function_call` is the deprecated spelling of
 * `tool_calls`; anything else (null, vLLM's `abort`, OpenRouter's `error`) is `other`.
 */
export function readFinishReason(value: unknown): FinishReason {
  switch (value) {
    case 'stop':
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return value;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}
