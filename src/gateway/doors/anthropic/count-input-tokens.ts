import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import { countChatInputTokens, loadTokenizer } from '../../domain/token-count.ts';

/**
 * `POST /v1/messages/count_tokens`: the input tokens of a conversation and its tools, counted by
 * the gateway's own tokenizer (o200k_base, the one it estimates usage with), not by the vendor:
 * no upstream is called, nothing is charged and nothing is recorded. Every model counts alike, so
 * the figure is an estimate of what a Claude model (or any other) would bill. Bounded in time like
 * every count of the gateway (token-count.ts: sliced, paced, sampled past 256 KiB).
 */
export async function countInputTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
): Promise<number> {
  const tokenizer = await loadTokenizer();
  const texts: string[] = [];
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) texts.push(call.name, call.arguments);
    if (message.toolCallId !== undefined) texts.push(message.toolCallId);
  }
  for (const tool of tools) {
    texts.push(tool.name, tool.description ?? '', JSON.stringify(tool.parameters));
  }
  const conversation = await countChatInputTokens(tokenizer, messages);
  return texts.length === 0 ? conversation : conversation + (await tokenizer.count(texts));
}
