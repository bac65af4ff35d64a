import { encodeEvent } from '../../../platform/sse.ts';
import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import type { StreamEventOf } from '../../services/use-cases/run-chat-stream.ts';
import type { ResponsesRequest } from './read-responses-request.ts';
import { reasoningItem } from './reasoning-items.ts';
import { toResponseFailure } from './to-response-failure.ts';
import {
  callItem,
  customInput,
  endOf,
  itemIdOf,
  messageItem,
  type OutputItem,
  outputTextPart,
  toResponseUsage,
  withReasoningToken,
} from './to-response-output.ts';
import { type ResponseState, toResponseResource } from './to-response-resource.ts';

/** What the stream's first events know: the response id, when it started, the model serving it. */
export interface ResponseStart {
  id: string;
  createdAt: number;
  model: string;
}

/**
 * The gateway's chat stream as the Responses API's events (CONTRACT 5.4, Open Responses
 * "Streaming"), each with its `sequence_number`: `response.created` and `response.in_progress`
 * with the response so far; per output item `response.output_item.added`, its content
 * (`reasoning_summary_part.added`, one `reasoning_summary_text.delta`, `.done` and
 * `reasoning_summary_part.done` for a reasoning item with text, sent whole once the upstream's
 * thinking block ended with its signature; `content_part.added`, `output_text.delta`s,
 * `output_text.done`, `content_part.done` for the message; `function_call_arguments.delta`/`.done`, or OpenAI's `custom_tool_call_input.delta`/
 * `.done` for a custom tool's call) and `response.output_item.done`; then `response.completed`
 * (or `response.incomplete` when the answer was cut) with the whole response and its usage, the
 * cost in `usage.cost_usd`. A
 * failure after the first byte is `response.failed` with OpenAI's error code. Tool calls arrive
 * whole, so each has one delta. `onEnd` gets the final response (a stored one is kept before
 * the last event goes out, so a client that continues from it at once finds it).
 */
export async function* toResponseEvents(
  start: ResponseStart,
  events: AsyncIterable<StreamEventOf<ChatAnswer>>,
  request: ResponsesRequest,
  onEnd: (response: Record<string, unknown>) => Promise<void> | undefined = () => undefined,
): AsyncGenerator<string, string, undefined> {
  const writer = new ResponseWriter(start, request);
  yield writer.event('response.created', { response: writer.snapshot({ status: 'in_progress' }) });
  yield writer.event('response.in_progress', { response: writer.snapshot({ status: 'in_progress' }) });
  for await (const event of events) {
    switch (event.event) {
      case 'delta':
        if (event.data.content !== '') yield* writer.text(event.data.content);
        break;
      case 'tool_call':
        yield* writer.call(event.data);
        break;
      case 'thinking':
        yield* writer.reasoning(event.data);
        break;
      case 'done': {
        for (const call of event.data.message.toolCalls ?? [])
          if (!writer.sentCalls.has(call.id)) yield* writer.call(call);
        const end = endOf(event.data.finishReason);
        yield* writer.closeMessage(end.status);
        const response = writer.snapshot({
          status: end.status,
          incompleteDetails: end.incomplete_details,
          completedAt: Math.floor(Date.now() / 1000),
          model: event.data.model,
          // The cost, which the stream has no header for, as the OpenAI door's usage chunk has it.
          usage: { ...toResponseUsage(event.data.usage), cost_usd: event.data.usage.estimatedCost },
        });
        await onEnd(response);
        return writer.event(end.status === 'completed' ? 'response.completed' : 'response.incomplete', {
          response,
        });
      }
      case 'error': {
        yield* writer.closeMessage('incomplete');
        const response = writer.snapshot({ status: 'failed', error: toResponseFailure(event.data) });
        return writer.event('response.failed', { response });
      }
    }
  }
  return '';
}

/** The items written so far, the open message, and the sequence numbers. */
class ResponseWriter {
  readonly sentCalls = new Set<string>();
  readonly #start: ResponseStart;
  readonly #request: ResponsesRequest;
  readonly #output: OutputItem[] = [];
  #sequence = 0;
  #open: { id: string; index: number; text: string } | undefined;

  constructor(start: ResponseStart, request: ResponsesRequest) {
    this.#start = start;
    this.#request = request;
  }

  event(type: string, data: Record<string, unknown>): string {
    return encodeEvent(type, { type, sequence_number: this.#sequence++, ...data });
  }

  snapshot(state: Partial<ResponseState> & Pick<ResponseState, 'status'>): Record<string, unknown> {
    return toResponseResource(
      {
        id: this.#start.id,
        createdAt: this.#start.createdAt,
        model: this.#start.model,
        output: this.#output,
        ...state,
      },
      this.#request.echo,
    );
  }

  *text(delta: string): Generator<string> {
    if (this.#open === undefined) {
      const index = this.#output.length;
      const id = itemIdOf(this.#start.id, 'msg', index);
      this.#open = { id, index, text: '' };
      // A placeholder, replaced by the done item.
      this.#output.push(messageItem(id, '', 'in_progress'));
      yield this.event('response.output_item.added', {
        output_index: index,
        item: messageItem(id, '', 'in_progress'),
      });
      yield this.event('response.content_part.added', { ...this.#at(), part: outputTextPart('') });
    }
    this.#open.text += delta;
    yield this.event('response.output_text.delta', { ...this.#at(), delta, logprobs: [] });
  }

  *closeMessage(status: 'completed' | 'incomplete'): Generator<string> {
    const open = this.#open;
    if (open === undefined) return;
    const at = this.#at();
    this.#open = undefined;
    yield this.event('response.output_text.done', { ...at, text: open.text, logprobs: [] });
    yield this.event('response.content_part.done', { ...at, part: outputTextPart(open.text) });
    const item = messageItem(open.id, open.text, status);
    this.#output[open.index] = item;
    yield this.event('response.output_item.done', { output_index: open.index, item });
  }

  *reasoning(part: ThinkingPart): Generator<string> {
    yield* this.closeMessage('completed');
    const index = this.#output.length;
    const id = itemIdOf(this.#start.id, 'rs', index);
    const item = reasoningItem(id, part, withReasoningToken(this.#request));
    this.#output.push(item);
    yield this.event('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
    const summary = (item['summary'] as { type: 'summary_text'; text: string }[])[0];
    if (summary !== undefined) {
      const at = { item_id: id, output_index: index, summary_index: 0 };
      yield this.event('response.reasoning_summary_part.added', {
        ...at,
        part: { type: 'summary_text', text: '' },
      });
      yield this.event('response.reasoning_summary_text.delta', { ...at, delta: summary.text });
      yield this.event('response.reasoning_summary_text.done', { ...at, text: summary.text });
      yield this.event('response.reasoning_summary_part.done', { ...at, part: summary });
    }
    yield this.event('response.output_item.done', { output_index: index, item });
  }

  *call(call: ToolCall): Generator<string> {
    yield* this.closeMessage('completed');
    this.sentCalls.add(call.id);
    const origin = this.#request.tools.origins.get(call.name);
    const custom = origin?.kind === 'custom';
    const index = this.#output.length;
    const id = itemIdOf(this.#start.id, custom ? 'ctc' : 'fc', index);
    const item = callItem(id, call, origin, 'completed');
    this.#output.push(item);
    yield this.event('response.output_item.added', {
      output_index: index,
      item: callItem(id, call, origin, 'in_progress'),
    });
    const at = { item_id: id, output_index: index };
    if (custom) {
      const input = customInput(call.arguments);
      yield this.event('response.custom_tool_call_input.delta', { ...at, delta: input });
      yield this.event('response.custom_tool_call_input.done', { ...at, input });
    } else {
      yield this.event('response.function_call_arguments.delta', { ...at, delta: call.arguments });
      yield this.event('response.function_call_arguments.done', {
        ...at,
        name: item['name'],
        arguments: call.arguments,
      });
    }
    yield this.event('response.output_item.done', { output_index: index, item });
  }

  #at() {
    const open = this.#open as { id: string; index: number };
    return { item_id: open.id, output_index: open.index, content_index: 0 };
  }
}
