import { safeJson } from '../http/upstream-http.ts';
import { asCount, asString, isRecord } from '../json-guards.ts';
import type { ChatStreamEvent } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { mapAnthropicStreamError } from './anthropic-error.ts';
import { mapStopReason } from './anthropic-stop-reason.ts';
import {
  type AnthropicUsageCounts,
  mergeUsageCounts,
  readUsageCounts,
  toReportedUsage,
} from './anthropic-usage.ts';
import {
  forcedToolContent,
  invalidResponse,
  isForcedToolUse,
  type ResponseContext,
} from './from-anthropic-response.ts';

/** One server-sent event as the SSE parser gives it. */
export interface SseMessage {
  event?: string | undefined;
  data: string;
}

type BlockKind = 'text' | 'json' | 'other';

/**
 * Translates a Messages API event stream into the gateway's stream events.
 *
 * Anthropic sends `message_start` (model, input and cache usage), then per content block
 * `content_block_start`, `content_block_delta`s and `content_block_stop`, then `message_delta`
 * (stop_reason, cumulative usage) and `message_stop`; `ping` may come at any point and an `error`
 * event can replace the rest. This yields `model` first, then `delta`s, then `finish` and `usage`
 * once `message_stop` arrives. A stream that ends before it was cut short.
 *
 * Structured output streams the forced tool's `input_json_delta` fragments as they come, so the
 * deltas concatenate to the JSON answer. A wrapped (non-object) schema's fragments are held until
 * the block ends, since `{"value": …}` must be unwrapped first. In JSON mode, text outside the tool
 * is held too and only sent when no tool call came, matching what `chat` answers.
 */
export async function* fromAnthropicStream(
  events: AsyncIterable<SseMessage>,
  context: ResponseContext,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const { slot, jsonTool } = context;
  const blocks = new Map<number, BlockKind>();
  let started = false;
  let counts: AnthropicUsageCounts = {};
  let stopReason: unknown;
  let toolSeen = false;
  let heldText = '';
  let heldJson = '';

  for await (const message of events) {
    if (message.event === 'ping') continue;
    const data = safeJson(message.data);
    const type = isRecord(data) ? data['type'] : message.event;
    if (type === 'ping') continue;
    if (type === 'error' || message.event === 'error') throw mapAnthropicStreamError(slot, data);
    if (!isRecord(data)) throw invalidResponse(slot, 'stream event is not a JSON object');
    if (type !== 'message_start' && !started)
      throw invalidResponse(slot, 'stream did not begin with message_start');

    switch (type) {
      case 'message_start': {
        const start = data['message'];
        if (!isRecord(start)) throw invalidResponse(slot, 'message_start without message');
        started = true;
        counts = readUsageCounts(start['usage']);
        yield { type: 'model', model: asString(start['model']) ?? context.requestedModel };
        break;
      }
      case 'content_block_start': {
        const index = asCount(data['index']);
        const block = data['content_block'];
        if (index === undefined || !isRecord(block))
          throw invalidResponse(slot, 'malformed content_block_start');
        let kind: BlockKind = 'other';
        if (block['type'] === 'text') kind = 'text';
        else if (!toolSeen && isForcedToolUse(block, jsonTool)) {
          kind = 'json';
          toolSeen = true;
        }
        blocks.set(index, kind);
        // Text blocks start empty in practice; should one not, its text is part of the answer.
        const initial = kind === 'text' ? (asString(block['text']) ?? '') : '';
        if (initial !== '') {
          if (jsonTool === undefined) yield { type: 'delta', content: initial };
          else heldText += initial;
        }
        break;
      }
      case 'content_block_delta': {
        const index = asCount(data['index']);
        const delta = data['delta'];
        if (index === undefined || !isRecord(delta))
          throw invalidResponse(slot, 'malformed content_block_delta');
        const kind = blocks.get(index);
        if (kind === 'text' && delta['type'] === 'text_delta') {
          const text = asString(delta['text']);
          if (text === undefined) throw invalidResponse(slot, 'text_delta without text');
          if (jsonTool !== undefined) heldText += text;
          else if (text !== '') yield { type: 'delta', content: text };
        } else if (kind === 'json' && delta['type'] === 'input_json_delta') {
          const fragment = asString(delta['partial_json']);
          if (fragment === undefined) throw invalidResponse(slot, 'input_json_delta without partial_json');
          if (jsonTool?.wrapped) heldJson += fragment;
          else if (fragment !== '') yield { type: 'delta', content: fragment };
        }
        // thinking_delta, signature_delta, citations_delta and deltas of other blocks are not answer text.
        break;
      }
      case 'content_block_stop': {
        const index = asCount(data['index']);
        if (index !== undefined && blocks.get(index) === 'json' && jsonTool?.wrapped) {
          // A fragment stream that is not JSON is passed on as it is; validation then reports it.
          const parsed = safeJson(heldJson === '' ? '{}' : heldJson);
          const content = parsed === undefined ? heldJson : forcedToolContent(parsed, jsonTool);
          heldJson = '';
          if (content !== '') yield { type: 'delta', content };
        }
        break;
      }
      case 'message_delta': {
        const delta = data['delta'];
        if (isRecord(delta) && delta['stop_reason'] !== undefined) stopReason = delta['stop_reason'];
        counts = mergeUsageCounts(counts, readUsageCounts(data['usage']));
        break;
      }
      case 'message_stop': {
        if (jsonTool !== undefined && !toolSeen && heldText !== '')
          yield { type: 'delta', content: heldText };
        yield { type: 'finish', reason: mapStopReason(stopReason, jsonTool !== undefined) };
        const usage = toReportedUsage(counts);
        if (usage !== undefined) yield { type: 'usage', usage };
        return;
      }
      default:
        // Event types added after this adapter was written carry nothing it needs.
        break;
    }
  }
  if (!started) throw invalidResponse(slot, 'stream ended without message_start');
  throw new ProviderError({ slot, failure: 'connection', detail: 'stream ended before message_stop' });
}
