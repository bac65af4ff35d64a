import type { ProviderSlot } from '../../../config/config-types.ts';
import { isRecord } from '../json-guards.ts';
import type { ChatResult } from '../provider.ts';
import { readFinishReason, readOpenAIUsage } from './completion-fields.ts';
import { invalidResponse } from './openai-error.ts';
import { readMessageToolCalls } from './openai-tool-calls.ts';

/**
 * A Chat Completions response (`object: "chat.completion"`) to a ChatResult. Only the first
 * choice is read: the adapter never asks for `n > 1`. A body without a readable first choice is
 * an `invalid_response`; missing or unreadable usage is `undefined` (the gateway estimates).
 */
export function fromOpenAIChatResponse(
  slot: ProviderSlot,
  body: unknown,
  requestedModel: string,
): ChatResult {
  if (!isRecord(body)) throw invalidResponse(slot, 'completion is not an object');
  const choices = body['choices'];
  if (!Array.isArray(choices) || choices.length === 0)
    throw invalidResponse(slot, 'completion has no choices');
  const choice: unknown = choices[0];
  if (!isRecord(choice) || !isRecord(choice['message'])) {
    throw invalidResponse(slot, 'completion choice has no message');
  }
  const message = choice['message'];
  const content = message['content'];
  const refusal = message['refusal'];
  if (content !== null && content !== undefined && typeof content !== 'string') {
    throw invalidResponse(slot, 'completion message content is not text');
  }
  let text = content ?? '';
  let finishReason = readFinishReason(choice['finish_reason']);
  // A structured-output refusal comes with `content: null` and the reason in `refusal`. It is
  // passed on as the answer, flagged as filtered, rather than as an empty "stop".
  if (text === '' && typeof refusal === 'string' && refusal !== '') {
    text = refusal;
    finishReason = 'content_filter';
  }
  const toolCalls = readMessageToolCalls(slot, message, body['id']);
  // A forced tool_choice makes OpenAI answer `stop` with tool calls, and some compatible servers
  // always do: an answer that calls tools finished to have them run, whatever it says.
  if (toolCalls.length > 0 && finishReason === 'stop') finishReason = 'tool_calls';
  const model = body['model'];
  const result: ChatResult = {
    model: typeof model === 'string' && model !== '' ? model : requestedModel,
    content: text,
    finishReason,
    usage: readOpenAIUsage(body['usage']),
  };
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  return result;
}
