import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import { countChatInputTokens, type Tokenizer } from '../../domain/token-count.ts';

/**
 * `POST /v1/messages/count_tokens`: the input tokens of a conversation and its tools, counted by
 * the gateway's own tokenizer (o200k_base) by the rules its usage estimates use (token-count.ts:
 * message framing, tool calls, tool definitions), not by the vendor: no upstream is called,
 * nothing is charged and nothing is recorded. Every model counts alike, so the figure estimates
 * what a Claude model (or any other) would bill. Bounded in time like every count of the gateway
 * (sliced, paced, sampled past 256 KiB) and counted on the tokenizer's thread; when that thread
 * cannot count (it died twice running), the request answers 503 with Retry-After.
 */
export function countInputTokens(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
): Promise<number> {
  return countChatInputTokens(tokenizer, messages, tools.length > 0 ? tools : undefined);
}
