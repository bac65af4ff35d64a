import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import { type AnthropicUsage, toAnthropicUsage } from './to-anthropic-usage.ts';

/**
 * The gateway's chat answer as Anthropic's `Message` (API reference, "Create a Message",
 * response body; `@anthropic-ai/sdk` `Message`). Pure: the route adds the cost header.
 */

/** What this translation reads of an answer: the service's `ChatAnswer` is one. */
export interface AnsweredChat {
  id: string;
  model: string;
  message: { content: string; toolCalls?: readonly ToolCall[] | undefined };
  finishReason?: FinishReason | undefined;
  /** The stop sequence that ended the answer, when the upstream said which. */
  stopSequence?: string | undefined;
  usage: ResponseUsage;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export interface TextBlock {
  type: 'text';
  text: string;
  citations: null;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export type ContentBlock = TextBlock | ToolUseBlock;

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  stop_details: null;
  container: null;
  usage: AnthropicUsage;
}

/**
 * The property a tool call's arguments go under when they are not a JSON object: Anthropic's
 * `input` must be an object, and the text the model wrote is kept rather than dropped, so that
 * the client's tool can report it back and the model can try again.
 */
export const UNPARSED_ARGUMENTS_KEY = '_gateway_unparsed_arguments';

/** A tool call's `arguments` (JSON text) as a `tool_use` block's `input` object. */
export function toToolInput(argumentsText: string): Record<string, unknown> {
  // Some upstreams send no text at all for a call without parameters.
  if (argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: kept as text below.
  }
  return { [UNPARSED_ARGUMENTS_KEY]: argumentsText };
}

export function toToolUseBlock(call: ToolCall): ToolUseBlock {
  return { type: 'tool_use', id: call.id, name: call.name, input: toToolInput(call.arguments) };
}

/**
 * The gateway's finish reason in Anthropic's words. An answer that carries tool calls stopped to
 * use them whatever the upstream said (a forced call ends with `stop` on some vendors). A `stop`
 * is `stop_sequence` when the upstream said which sequence ended the text (see
 * `toStopSequence`), else `end_turn`: OpenAI and Gemini do not say.
 */
export function toStopReason(
  finishReason: FinishReason | undefined,
  hasToolCalls: boolean,
  stopSequence?: string,
): StopReason {
  if (hasToolCalls) return 'tool_use';
  switch (finishReason) {
    case 'stop':
      return stopSequence === undefined ? 'end_turn' : 'stop_sequence';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** `stop_sequence` beside `toStopReason`: the sequence, only where the reason is `stop_sequence`. */
export function toStopSequence(
  finishReason: FinishReason | undefined,
  hasToolCalls: boolean,
  stopSequence: string | undefined,
): string | null {
  return toStopReason(finishReason, hasToolCalls, stopSequence) === 'stop_sequence'
    ? (stopSequence ?? null)
    : null;
}

/** The tool calls an answer keeps: only the first when the client disabled parallel tool use. */
export function keptToolCalls(
  calls: readonly ToolCall[] | undefined,
  singleToolCall: boolean,
): readonly ToolCall[] {
  if (calls === undefined) return [];
  return singleToolCall ? calls.slice(0, 1) : calls;
}

export function toAnthropicMessage(answer: AnsweredChat, singleToolCall = false): AnthropicMessage {
  const content: ContentBlock[] = [];
  if (answer.message.content !== '')
    content.push({ type: 'text', text: answer.message.content, citations: null });
  const calls = keptToolCalls(answer.message.toolCalls, singleToolCall);
  for (const call of calls) content.push(toToolUseBlock(call));
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    stop_reason: toStopReason(answer.finishReason, calls.length > 0, answer.stopSequence),
    stop_sequence: toStopSequence(answer.finishReason, calls.length > 0, answer.stopSequence),
    stop_details: null,
    container: null,
    usage: toAnthropicUsage(answer.usage),
  };
}
