import type { ProviderSlot } from '../../../config/config-types.ts';
import { fromAnthropicResponse } from '../anthropic/from-anthropic-response.ts';
import type { JsonToolPlan } from '../anthropic/to-anthropic-request.ts';
import { asString, isRecord } from '../json-guards.ts';
import type { ChatResult } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';

/**
 * A Converse answer read through the Messages API's reader: Converse's blocks, stop reasons and
 * usage are Anthropic's under other names, so they are renamed and read by the one reader that
 * knows tool calls, signed thinking and the forced structured-output tool. Converse's
 * `inputTokens` excludes cache reads and writes, as Anthropic's `input_tokens` does (CONTRACT 6.9).
 */
export function fromConverseResponse(
  slot: ProviderSlot,
  body: unknown,
  model: string,
  jsonTool: JsonToolPlan | undefined,
): ChatResult {
  const message = isRecord(body) && isRecord(body['output']) ? body['output']['message'] : undefined;
  if (!isRecord(body) || !isRecord(message) || !Array.isArray(message['content']))
    throw new ProviderError({
      slot,
      failure: 'invalid_response',
      detail: 'Converse answer has no output.message',
    });
  return fromAnthropicResponse(
    {
      model,
      content: message['content'].flatMap((block) => {
        const renamed = toAnthropicBlock(block);
        return renamed === undefined ? [] : [renamed];
      }),
      stop_reason: toStopReason(body['stopReason']),
      usage: toAnthropicUsage(body['usage']),
    },
    { slot, requestedModel: model, jsonTool },
  );
}

/** One Converse content block as the Messages block it stands for; undefined for one with no counterpart. */
export function toAnthropicBlock(block: unknown): Record<string, unknown> | undefined {
  if (!isRecord(block)) return undefined;
  if (typeof block['text'] === 'string') return { type: 'text', text: block['text'] };
  const toolUse = block['toolUse'];
  if (isRecord(toolUse))
    return {
      type: 'tool_use',
      id: toolUse['toolUseId'],
      name: toolUse['name'],
      input: toolUse['input'] ?? {},
    };
  const reasoning = block['reasoningContent'];
  if (isRecord(reasoning)) {
    const text = reasoning['reasoningText'];
    if (isRecord(text))
      return { type: 'thinking', thinking: asString(text['text']) ?? '', signature: text['signature'] };
    const redacted = asString(reasoning['redactedContent']);
    if (redacted !== undefined) return { type: 'redacted_thinking', data: redacted };
  }
  return undefined;
}

const STOP_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  guardrail_intervened: 'refusal',
  content_filtered: 'refusal',
  model_context_window_exceeded: 'model_context_window_exceeded',
};

/** Converse's stopReason as Anthropic's stop_reason (a guardrail or filter is a refusal). */
export function toStopReason(reason: unknown): string | null {
  const text = asString(reason);
  if (text === undefined) return null;
  return STOP_REASONS[text] ?? text;
}

/** Converse's usage as Anthropic's names: both count input without the cache's reads and writes. */
export function toAnthropicUsage(usage: unknown): Record<string, number> | undefined {
  if (!isRecord(usage)) return undefined;
  const count = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
  return {
    input_tokens: count('inputTokens'),
    output_tokens: count('outputTokens'),
    cache_read_input_tokens: count('cacheReadInputTokens'),
    cache_creation_input_tokens: count('cacheWriteInputTokens'),
  };
}
