import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { ToolOrigin } from './read-response-tools.ts';
import type { ResponsesRequest } from './read-responses-request.ts';
import { reasoningItem } from './reasoning-items.ts';

/**
 * The answer's parts as Responses output items (Open Responses `ItemField`, with OpenAI's
 * `custom_tool_call` for a custom tool's call): a reasoning item per signed thinking block, the
 * assistant message, then one item per call, in the order OpenAI writes them.
 * Ids are derived from the response id, so the same answer always has the same item ids.
 */

export type OutputItem = Record<string, unknown> & { type: string; id: string };

/** `resp_…` for the run's id (`chat_…`, `json_…`): the same hex digits, the Responses prefix. */
export function responseIdOf(runId: string): string {
  const underscore = runId.indexOf('_');
  return `resp_${underscore === -1 ? runId : runId.slice(underscore + 1)}`;
}

/** An item's id: its kind's prefix, the response's digits and the item's place in the output. */
export function itemIdOf(responseId: string, prefix: string, index: number): string {
  return `${prefix}_${responseId.slice('resp_'.length)}_${index}`;
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return {
    type: 'message',
    id,
    status,
    role: 'assistant',
    content: status === 'in_progress' ? [] : [outputTextPart(text)],
  } satisfies OutputItem;
}

export function outputTextPart(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/**
 * A call as the client's tool names it: a custom tool's call carries its free-form `input` (the
 * `input` argument it was given upstream; the whole arguments text when the model wrote
 * something else), a namespace member's call its `name` and `namespace` apart.
 */
export function callItem(
  id: string,
  call: ToolCall,
  origin: ToolOrigin | undefined,
  status: 'in_progress' | 'completed',
): OutputItem {
  // Four literals rather than a spread of the name between the fields: a property after a spread
  // that is not first is defined through V8's runtime (architecture.md, "A request's path"), and
  // the fields keep the order the client reads them in.
  const name = origin?.name ?? call.name;
  const namespace = origin?.namespace;
  const completed = status === 'completed';
  if (origin?.kind === 'custom') {
    const input = completed ? customInput(call.arguments) : '';
    return namespace === undefined
      ? { type: 'custom_tool_call', id, status, call_id: call.id, name, input }
      : { type: 'custom_tool_call', id, status, call_id: call.id, name, namespace, input };
  }
  const args = completed ? call.arguments : '';
  return namespace === undefined
    ? { type: 'function_call', id, status, call_id: call.id, name, arguments: args }
    : { type: 'function_call', id, status, call_id: call.id, name, namespace, arguments: args };
}

/** The free-form input of a custom tool's call, from the `{"input": …}` the upstream wrote. */
export function customInput(argumentsText: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as { input?: unknown }).input === 'string'
    ) {
      return (parsed as { input: string }).input;
    }
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return argumentsText;
}

/**
 * Whether reasoning items carry their `encrypted_content`: when the request's `include` asks for
 * it, as OpenAI does, and for a stored response too, so that `previous_response_id` carries the
 * signed thinking into the next turn (OpenAI keeps it on its side; the gateway keeps the items).
 */
export function withReasoningToken(
  request: Pick<ResponsesRequest, 'includeEncryptedReasoning' | 'store'>,
): boolean {
  return request.includeEncryptedReasoning || request.store;
}

/** The whole output of a finished answer. */
export function outputItems(
  responseId: string,
  answer: { text: string; calls: readonly ToolCall[]; thinking: readonly ThinkingPart[] },
  origins: ReadonlyMap<string, ToolOrigin>,
  messageStatus: 'completed' | 'incomplete',
  withToken: boolean,
): OutputItem[] {
  const { text, calls } = answer;
  const items: OutputItem[] = [];
  for (const part of answer.thinking) {
    items.push(reasoningItem(itemIdOf(responseId, 'rs', items.length), part, withToken));
  }
  if (text !== '') items.push(messageItem(itemIdOf(responseId, 'msg', items.length), text, messageStatus));
  for (const call of calls) {
    const prefix = origins.get(call.name)?.kind === 'custom' ? 'ctc' : 'fc';
    items.push(
      callItem(itemIdOf(responseId, prefix, items.length), call, origins.get(call.name), 'completed'),
    );
  }
  return items;
}

/** How an answer ended, as a Response's `status` and `incomplete_details`. */
export function endOf(reason: FinishReason | undefined): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: string } | null;
} {
  if (reason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/**
 * The Responses usage: `input_tokens` holds the cached reads, as OpenAI counts them, and
 * `output_tokens` the reasoning, of which `reasoning_tokens` says how much where the upstream
 * reported it (OpenAI's `completion_tokens_details`, Gemini's `thoughtsTokenCount`); else 0.
 */
export function toResponseUsage(usage: ResponseUsage) {
  return {
    input_tokens: usage.tokensIn,
    input_tokens_details: { cached_tokens: usage.tokensInCacheRead },
    output_tokens: usage.tokensOut,
    output_tokens_details: { reasoning_tokens: usage.tokensOutReasoning ?? 0 },
    total_tokens: usage.tokensIn + usage.tokensOut,
  };
}
