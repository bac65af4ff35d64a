import { errorStatus } from '../../../platform/errors.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { StreamEventOf } from '../../services/use-cases/run-chat-stream.ts';
import { type AnthropicErrorBody, toAnthropicErrorBody } from './anthropic-error-body.ts';
import {
  type AnsweredChat,
  type AnthropicMessage,
  type ContentBlock,
  type StopReason,
  toStopReason,
  toStopSequence,
  toToolInput,
} from './to-anthropic-message.ts';
import { type AnthropicUsage, toAnthropicStartUsage, toAnthropicUsage } from './to-anthropic-usage.ts';

/**
 * The gateway's chat stream as Anthropic's event sequence (API reference, "Streaming Messages"):
 * `message_start`, a `ping`, then per content block `content_block_start`, its
 * `content_block_delta`s (`text_delta` or `input_json_delta`) and `content_block_stop`, then
 * `message_delta` (stop reason and usage) and `message_stop`. A failure after the first byte is
 * Anthropic's `error` event, which the SDK raises as an `APIError`.
 *
 * The gateway learns most usage at the end of the stream: `message_start` carries the prompt's
 * counts (input and prompt cache) when the upstream's first event had them, as an Anthropic
 * upstream's does, zeros otherwise; `message_delta` carries the totals, `input_tokens` and the
 * cache counts as well as `output_tokens` (the SDK takes them from there; it keeps message_start's
 * `cache_creation` split, which only an Anthropic upstream fills), plus `cost_usd`, the cost the
 * vendors' bodies have no field for (CONTRACT 4.2). Tool calls arrive complete, so each
 * `tool_use` block carries its whole input in one delta.
 */

/** The `data:` of each event; its `type` repeats the SSE `event:` name. */
export type AnthropicStreamEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'ping' }
  | { type: 'content_block_start'; index: number; content_block: ContentBlock }
  | {
      type: 'content_block_delta';
      index: number;
      delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string };
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: StopReason; stop_sequence: string | null; stop_details: null; container: null };
      usage: AnthropicUsage & { cost_usd: number };
    }
  | { type: 'message_stop' }
  | AnthropicErrorBody;

/** One event to write: its SSE `event:` name and its `data:` object. */
export interface SseMessage {
  event: AnthropicStreamEvent['type'];
  data: AnthropicStreamEvent;
}

/** The service's stream events this translation reads: `delta`s and `tool_call`s, then `done` or `error`. */
export type GatewayStreamEvent = StreamEventOf<AnsweredChat>;

export interface StreamStart {
  id: string;
  model: string;
  /** The prompt's counts, when the upstream reported them with its first event. */
  promptUsage?: ReportedUsage | undefined;
}

export async function* toAnthropicEvents(
  start: StreamStart,
  events: AsyncIterable<GatewayStreamEvent>,
  singleToolCall = false,
): AsyncGenerator<SseMessage, void, undefined> {
  yield { event: 'message_start', data: { type: 'message_start', message: startingMessage(start) } };
  yield { event: 'ping', data: { type: 'ping' } };
  const blocks = new BlockSequence();
  for await (const event of events) {
    switch (event.event) {
      case 'delta':
        if (event.data.content !== '') yield* blocks.text(event.data.content);
        break;
      case 'tool_call':
        if (!singleToolCall || blocks.toolCalls === 0) yield* blocks.toolUse(event.data);
        break;
      case 'thinking':
        // This lane serves OpenAI and Gemini slots, whose answers carry no signed thinking (decision 0018).
        break;
      case 'done':
        yield* finish(blocks, event.data, singleToolCall);
        return;
      case 'error':
        yield* blocks.close();
        yield { event: 'error', data: toAnthropicErrorBody(event.data, errorStatus[event.data.error.code]) };
        return;
    }
  }
}

function* finish(
  blocks: BlockSequence,
  answer: AnsweredChat,
  singleToolCall: boolean,
): Generator<SseMessage> {
  // Calls the answer holds that no event announced (an adapter that only reports them at the end).
  for (const call of answer.message.toolCalls ?? []) {
    if (singleToolCall && blocks.toolCalls > 0) break;
    if (!blocks.sentCallIds.has(call.id)) yield* blocks.toolUse(call);
  }
  yield* blocks.close();
  const hasToolCalls = blocks.toolCalls > 0;
  yield {
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: {
        stop_reason: toStopReason(answer.finishReason, hasToolCalls, answer.stopSequence),
        stop_sequence: toStopSequence(answer.finishReason, hasToolCalls, answer.stopSequence),
        stop_details: null,
        container: null,
      },
      usage: { ...toAnthropicUsage(answer.usage), cost_usd: answer.usage.estimatedCost },
    },
  };
  yield { event: 'message_stop', data: { type: 'message_stop' } };
}

function startingMessage(start: StreamStart): AnthropicMessage {
  return {
    id: start.id,
    type: 'message',
    role: 'assistant',
    model: start.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: toAnthropicStartUsage(start.promptUsage),
  };
}

/** The content blocks written so far: their indexes, and whether a text block is open. */
class BlockSequence {
  #next = 0;
  #openText: number | undefined;
  toolCalls = 0;
  readonly sentCallIds = new Set<string>();

  *text(text: string): Generator<SseMessage> {
    if (this.#openText === undefined) {
      this.#openText = this.#next++;
      yield blockStart(this.#openText, { type: 'text', text: '', citations: null });
    }
    yield {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: this.#openText, delta: { type: 'text_delta', text } },
    };
  }

  *toolUse(call: ToolCall): Generator<SseMessage> {
    yield* this.close();
    const index = this.#next++;
    this.toolCalls++;
    this.sentCallIds.add(call.id);
    yield blockStart(index, { type: 'tool_use', id: call.id, name: call.name, input: {} });
    yield {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index,
        // The same object a non-streamed answer would hold, so both parse alike.
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(toToolInput(call.arguments)) },
      },
    };
    yield blockStop(index);
  }

  /** Closes the open text block, if any. */
  *close(): Generator<SseMessage> {
    if (this.#openText === undefined) return;
    const index = this.#openText;
    this.#openText = undefined;
    yield blockStop(index);
  }
}

function blockStart(index: number, block: ContentBlock): SseMessage {
  return { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } };
}

function blockStop(index: number): SseMessage {
  return { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
}
