import type { ProviderSlot } from '../../../config/config-types.ts';
import { asString, isRecord } from '../json-guards.ts';
import type { ChatResult, ThinkingPart, ToolCall } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { mapStopReason, matchedStopSequence } from './anthropic-stop-reason.ts';
import { readUsageCounts, toReportedUsage } from './anthropic-usage.ts';
import { type JsonToolPlan, WRAPPED_VALUE_KEY } from './to-anthropic-request.ts';

export interface ResponseContext {
  slot: ProviderSlot;
  /** Used when the answer does not name its model. */
  requestedModel: string;
  /** Set when structured output was asked for through a forced tool. */
  jsonTool: JsonToolPlan | undefined;
}

/**
 * A Messages API response (`{type: 'message', model, content: [...], stop_reason, usage}`) as a
 * ChatResult. The answer is the concatenated `text` blocks, or, for structured output, the forced
 * tool's `input` as JSON. Other `tool_use` blocks are the model's tool calls, in order, their
 * arguments the JSON text of `input`; `stop_reason: tool_use` is then `tool_calls`. `thinking` and
 * `redacted_thinking` blocks are the answer's thinking, with their signature or data byte for byte
 * (a door may hand them to the client to send back); their tokens are already in
 * `usage.output_tokens`. Server-tool blocks are not part of the answer.
 */
export function fromAnthropicResponse(body: unknown, context: ResponseContext): ChatResult {
  if (!isRecord(body) || !Array.isArray(body['content'])) {
    throw invalidResponse(context.slot, 'response has no content array');
  }
  let text = '';
  let toolInput: { input: unknown } | undefined;
  const toolCalls: ToolCall[] = [];
  const thinking: ThinkingPart[] = [];
  for (const block of body['content'] as unknown[]) {
    if (!isRecord(block)) throw invalidResponse(context.slot, 'content block is not an object');
    const part = readThinkingBlock(block);
    if (part !== undefined) thinking.push(part);
    else if (block['type'] === 'text') {
      const part = asString(block['text']);
      if (part === undefined) throw invalidResponse(context.slot, 'text block without text');
      text += part;
    } else if (isForcedToolUse(block, context.jsonTool) && toolInput === undefined) {
      toolInput = { input: block['input'] };
    } else if (block['type'] === 'tool_use' && !isForcedToolUse(block, context.jsonTool)) {
      toolCalls.push(readToolUse(block, context.slot));
    }
  }
  // Without the tool call (cut by max_tokens, refused) the text is all there is; the gateway's
  // validation then fails and it re-asks.
  const content =
    context.jsonTool !== undefined && toolInput !== undefined
      ? forcedToolContent(toolInput.input, context.jsonTool)
      : text;
  const result: ChatResult = {
    model: asString(body['model']) ?? context.requestedModel,
    content,
    finishReason: mapStopReason(body['stop_reason'], context.jsonTool !== undefined),
    usage: toReportedUsage(readUsageCounts(body['usage'])),
  };
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  if (thinking.length > 0) result.thinking = thinking;
  const stopSequence = matchedStopSequence(body['stop_reason'], body['stop_sequence']);
  if (stopSequence !== undefined) result.stopSequence = stopSequence;
  return result;
}

/**
 * A `thinking` block (its text and `signature`) or a `redacted_thinking` block (its `data`) as a
 * thinking part of Anthropic's; undefined for any other block, or one without its signature or
 * data (which Anthropic could not take back anyway).
 */
export function readThinkingBlock(block: Record<string, unknown>): ThinkingPart | undefined {
  if (block['type'] === 'thinking') {
    const signature = asString(block['signature']);
    if (signature === undefined || signature === '') return undefined;
    return { type: 'thinking', vendor: 'anthropic', text: asString(block['thinking']) ?? '', signature };
  }
  if (block['type'] === 'redacted_thinking') {
    const data = asString(block['data']);
    if (data === undefined || data === '') return undefined;
    return { type: 'thinking', vendor: 'anthropic', text: '', redacted: data };
  }
  return undefined;
}

/** A `tool_use` block as a call: `input` (an object) serialised back to JSON text. */
function readToolUse(block: Record<string, unknown>, slot: ProviderSlot): ToolCall {
  const id = asString(block['id']);
  const name = asString(block['name']);
  if (id === undefined || id === '' || name === undefined || name === '') {
    throw invalidResponse(slot, 'tool_use block without id or name');
  }
  return { id, name, arguments: JSON.stringify(block['input'] ?? {}) ?? '{}' };
}

export function isForcedToolUse(block: Record<string, unknown>, jsonTool: JsonToolPlan | undefined): boolean {
  return jsonTool !== undefined && block['type'] === 'tool_use' && block['name'] === jsonTool.name;
}

/**
 * The structured answer as JSON text: the tool input, or its `value` when the schema was wrapped.
 * An input that lacks the wrapper is passed on as it is, so schema validation reports it.
 */
export function forcedToolContent(input: unknown, jsonTool: JsonToolPlan): string {
  const value =
    jsonTool.wrapped && isRecord(input) && Object.hasOwn(input, WRAPPED_VALUE_KEY)
      ? input[WRAPPED_VALUE_KEY]
      : input;
  return JSON.stringify(value) ?? '';
}

export function invalidResponse(slot: ProviderSlot, detail: string): ProviderError {
  return new ProviderError({ slot, failure: 'invalid_response', detail });
}
