import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';

/** What the door reads of a chat answer (the chat use case's, or the JSON one's made into one). */
export interface CompletedChat {
  id: string;
  model: string;
  message: { content: string; toolCalls?: readonly ToolCall[] | undefined };
  finishReason?: FinishReason | undefined;
  usage: ResponseUsage;
}

export type OpenAIFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * The gateway's finish reason in OpenAI's words. `other` (an upstream's reason with no OpenAI
 * name, e.g. Anthropic's `pause_turn`) reads as `stop`, the reason a client treats as "the model
 * ended its turn"; without a reason, calls mean `tool_calls`.
 */
export function toOpenAIFinishReason(
  reason: FinishReason | undefined,
  hasToolCalls: boolean,
): OpenAIFinishReason {
  if (reason === undefined || reason === 'other') return hasToolCalls ? 'tool_calls' : 'stop';
  return reason;
}

export function toOpenAIToolCalls(calls: readonly ToolCall[]) {
  return calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
}

/**
 * OpenAI's usage object. `prompt_tokens` and `completion_tokens` are the gateway's `tokensIn` and
 * `tokensOut`: what the upstream reported (cached input included, reasoning included in the
 * output), summed over the request's attempts, as OpenAI's own fields count them.
 * `prompt_tokens_details.cached_tokens` is the prompt-cache reads, part of `prompt_tokens` as in
 * OpenAI's answers; OpenAI has no field for cache writes (an Anthropic upstream's), which stay in
 * `prompt_tokens` only.
 */
export function toOpenAIUsage(usage: ResponseUsage) {
  return {
    prompt_tokens: usage.tokensIn,
    completion_tokens: usage.tokensOut,
    total_tokens: usage.tokensIn + usage.tokensOut,
    prompt_tokens_details: { cached_tokens: usage.tokensInCacheRead },
  };
}

/** A `chat.completion` object, as `ChatCompletion` in the `openai` package describes it. */
export function toOpenAICompletion(answer: CompletedChat, created: number) {
  const calls = answer.message.toolCalls ?? [];
  const hasCalls = calls.length > 0;
  const message: Record<string, unknown> = {
    role: 'assistant',
    // OpenAI sends null content on a message that only calls tools.
    content: hasCalls && answer.message.content === '' ? null : answer.message.content,
    refusal: null,
  };
  if (hasCalls) message['tool_calls'] = toOpenAIToolCalls(calls);
  return {
    id: answer.id,
    object: 'chat.completion' as const,
    created,
    model: answer.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: toOpenAIFinishReason(answer.finishReason, hasCalls),
      },
    ],
    usage: toOpenAIUsage(answer.usage),
  };
}
