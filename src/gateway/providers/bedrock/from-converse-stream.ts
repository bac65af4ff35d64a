import type { EventSourceMessage } from 'eventsource-parser';
import type { ProviderSlot } from '../../../config/config-types.ts';
import { fromAnthropicStream, type SseMessage } from '../anthropic/from-anthropic-stream.ts';
import type { JsonToolPlan } from '../anthropic/to-anthropic-request.ts';
import { safeJson } from '../http/upstream-http.ts';
import { asString, isRecord } from '../json-guards.ts';
import type { ChatStreamEvent } from '../provider.ts';
import { bedrockStreamError } from './bedrock-error.ts';
import { toAnthropicUsage, toStopReason } from './from-converse-response.ts';

/**
 * A ConverseStream answer (AWS event-stream frames: messageStart, contentBlockStart,
 * contentBlockDelta, contentBlockStop, messageStop, metadata) read through the Messages stream's
 * reader, each frame renamed to the Messages event it stands for. Converse says why it stopped
 * before it gives the usage (`metadata`), so the stop waits for the usage and both go as one
 * `message_delta`. An exception frame fails the stream with the error it names.
 */
export function fromConverseStream(
  slot: ProviderSlot,
  frames: AsyncIterable<EventSourceMessage>,
  model: string,
  jsonTool: JsonToolPlan | undefined,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  return fromAnthropicStream(toMessagesEvents(slot, frames, model), {
    slot,
    requestedModel: model,
    jsonTool,
  });
}

async function* toMessagesEvents(
  slot: ProviderSlot,
  frames: AsyncIterable<EventSourceMessage>,
  model: string,
): AsyncGenerator<SseMessage, void, undefined> {
  const open = new Map<number, string>();
  let stopReason: string | null = null;
  let stopped = false;
  let usage: Record<string, number> | undefined;
  for await (const frame of frames) {
    if (frame.event === 'exception') throw bedrockStreamError(slot, frame.id, frame.data);
    const data = safeJson(frame.data);
    if (!isRecord(data)) continue;
    const index = typeof data['contentBlockIndex'] === 'number' ? data['contentBlockIndex'] : 0;
    switch (frame.event) {
      case 'messageStart':
        yield event('message_start', {
          message: { id: '', type: 'message', role: 'assistant', model, content: [], usage: {} },
        });
        break;
      case 'contentBlockStart': {
        const start = isRecord(data['start']) ? data['start'] : {};
        const toolUse = start['toolUse'];
        if (isRecord(toolUse)) {
          open.set(index, 'tool_use');
          yield event('content_block_start', {
            index,
            content_block: { type: 'tool_use', id: toolUse['toolUseId'], name: toolUse['name'], input: {} },
          });
        }
        break;
      }
      case 'contentBlockDelta': {
        const delta = isRecord(data['delta']) ? data['delta'] : {};
        yield* deltaEvents(open, index, delta);
        break;
      }
      case 'contentBlockStop':
        if (open.has(index)) yield event('content_block_stop', { index });
        open.delete(index);
        break;
      case 'messageStop':
        stopReason = toStopReason(data['stopReason']);
        stopped = true;
        break;
      case 'metadata':
        usage = toAnthropicUsage(data['usage']);
        break;
    }
  }
  if (!stopped) return;
  yield event('message_delta', {
    delta: { stop_reason: stopReason },
    ...(usage === undefined ? {} : { usage }),
  });
  yield event('message_stop', {});
}

/** A block's delta, opening the block first where Converse sent no start (text and reasoning). */
function* deltaEvents(open: Map<number, string>, index: number, delta: Record<string, unknown>) {
  const start = (type: string, block: Record<string, unknown>) => {
    if (open.has(index)) return [];
    open.set(index, type);
    return [event('content_block_start', { index, content_block: { type, ...block } })];
  };
  if (typeof delta['text'] === 'string') {
    yield* start('text', { text: '' });
    yield event('content_block_delta', { index, delta: { type: 'text_delta', text: delta['text'] } });
    return;
  }
  const toolUse = delta['toolUse'];
  if (isRecord(toolUse)) {
    yield event('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: asString(toolUse['input']) ?? '' },
    });
    return;
  }
  const reasoning = delta['reasoningContent'];
  if (!isRecord(reasoning)) return;
  const redacted = asString(reasoning['redactedContent']);
  if (redacted !== undefined) {
    yield* start('redacted_thinking', { data: redacted });
    return;
  }
  yield* start('thinking', { thinking: '', signature: '' });
  if (typeof reasoning['text'] === 'string')
    yield event('content_block_delta', {
      index,
      delta: { type: 'thinking_delta', thinking: reasoning['text'] },
    });
  if (typeof reasoning['signature'] === 'string')
    yield event('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: reasoning['signature'] },
    });
}

function event(type: string, body: Record<string, unknown>): SseMessage {
  return { event: type, data: JSON.stringify({ type, ...body }) };
}
