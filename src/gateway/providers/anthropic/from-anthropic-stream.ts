import { safeJson } from '../http/upstream-http.ts';
import { asCount, asString, isRecord } from '../json-guards.ts';
import type { ChatStreamEvent, ThinkingPart } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { MAX_STREAMED_TOOL_CALLS, MAX_TOOL_ARGUMENT_CHARS } from '../tool-arguments.ts';
import { mapAnthropicStreamError } from './anthropic-error.ts';
import { mapStopReason, matchedStopSequence } from './anthropic-stop-reason.ts';
import {
  type AnthropicUsageCounts,
  mergeUsageCounts,
  readUsageCounts,
  toReportedUsage,
  withPromptUsage,
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

type BlockKind = 'text' | 'json' | 'tool' | 'thinking' | 'other';

/**
 * The most thinking text one answer may stream (characters): far above the largest budget the
 * gateway asks for (24,576 tokens), so only an upstream gone wrong reaches it; it bounds memory.
 */
export const MAX_THINKING_CHARS = 1_000_000;

/** A thinking block being streamed: its text in pieces, then its signature (or a redacted block's data). */
interface OpenThinking {
  text: string;
  signature: string;
  redacted?: string;
}

/** A tool_use block being streamed: its id and name from content_block_start, its input in pieces. */
interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

/**
 * Translates a Messages API event stream into the gateway's stream events.
 *
 * Anthropic sends `message_start` (model, input and cache usage), then per content block
 * `content_block_start`, `content_block_delta`s and `content_block_stop`, then `message_delta`
 * (stop_reason, the stop_sequence that matched, cumulative usage) and `message_stop`; `ping` may come at any point and an `error`
 * event can replace the rest. This yields `model` first, then `delta`s, then `finish` and `usage`
 * once `message_stop` arrives. A stream that ends before it was cut short.
 *
 * Structured output streams the forced tool's `input_json_delta` fragments as they come, so the
 * deltas concatenate to the JSON answer. A wrapped (non-object) schema's fragments are held until
 * the block ends, since `{"value": …}` must be unwrapped first.
 *
 * Any other `tool_use` block is a tool call: its id and name come in `content_block_start`, its
 * input as `input_json_delta` fragments, and at `content_block_stop` the call is sent whole as one
 * `tool_call` event, the arguments being the fragments joined (none at all means `{}`). In JSON mode, text outside the tool
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
  let stopSequence: unknown;
  let toolSeen = false;
  let heldText = '';
  let heldJson = '';
  const toolUses = new Map<number, OpenToolUse>();
  const thinkings = new Map<number, OpenThinking>();
  let thinkingChars = 0;
  let toolCount = 0;
  let toolChars = 0;

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
        yield withPromptUsage(asString(start['model']) ?? context.requestedModel, counts);
        break;
      }
      case 'content_block_start': {
        const index = asCount(data['index']);
        const block = data['content_block'];
        if (index === undefined || !isRecord(block))
          throw invalidResponse(slot, 'malformed content_block_start');
        let kind: BlockKind = 'other';
        if (block['type'] === 'text') kind = 'text';
        else if (block['type'] === 'thinking' || block['type'] === 'redacted_thinking') {
          kind = 'thinking';
          thinkings.set(index, openThinking(block));
        } else if (!toolSeen && isForcedToolUse(block, jsonTool)) {
          kind = 'json';
          toolSeen = true;
        } else if (block['type'] === 'tool_use') {
          const id = asString(block['id']);
          const name = asString(block['name']);
          if (!id || !name) throw invalidResponse(slot, 'tool_use block without id or name');
          if (++toolCount > MAX_STREAMED_TOOL_CALLS)
            throw invalidResponse(slot, `more than ${MAX_STREAMED_TOOL_CALLS} tool calls in one answer`);
          kind = 'tool';
          toolUses.set(index, { id, name, json: '' });
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
        } else if (kind === 'tool' && delta['type'] === 'input_json_delta') {
          const fragment = asString(delta['partial_json']);
          const open = toolUses.get(index);
          if (fragment === undefined || open === undefined)
            throw invalidResponse(slot, 'input_json_delta without partial_json');
          toolChars += fragment.length;
          if (toolChars > MAX_TOOL_ARGUMENT_CHARS)
            throw invalidResponse(
              slot,
              `tool call arguments longer than ${MAX_TOOL_ARGUMENT_CHARS} characters`,
            );
          open.json += fragment;
        } else if (kind === 'thinking') {
          const open = thinkings.get(index);
          if (open === undefined) break;
          if (delta['type'] === 'thinking_delta') {
            const text = asString(delta['thinking']) ?? '';
            thinkingChars += text.length;
            if (thinkingChars > MAX_THINKING_CHARS)
              throw invalidResponse(slot, `thinking longer than ${MAX_THINKING_CHARS} characters`);
            open.text += text;
          } else if (delta['type'] === 'signature_delta') {
            const signature = asString(delta['signature']) ?? '';
            thinkingChars += signature.length;
            if (thinkingChars > MAX_THINKING_CHARS)
              throw invalidResponse(slot, `thinking longer than ${MAX_THINKING_CHARS} characters`);
            open.signature += signature;
          }
        }
        // citations_delta and deltas of other blocks are not answer text.
        break;
      }
      case 'content_block_stop': {
        const index = asCount(data['index']);
        const open = index === undefined ? undefined : toolUses.get(index);
        const thinking = index === undefined ? undefined : thinkings.get(index);
        if (thinking !== undefined && index !== undefined) {
          thinkings.delete(index);
          const part = closedThinking(thinking);
          if (part !== undefined) yield { type: 'thinking', part };
        } else if (open !== undefined && index !== undefined) {
          toolUses.delete(index);
          const args = open.json.trim() === '' ? '{}' : open.json;
          yield { type: 'tool_call', call: { id: open.id, name: open.name, arguments: args } };
        } else if (index !== undefined && blocks.get(index) === 'json' && jsonTool?.wrapped) {
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
        if (isRecord(delta) && delta['stop_reason'] !== undefined) {
          stopReason = delta['stop_reason'];
          stopSequence = delta['stop_sequence'];
        }
        counts = mergeUsageCounts(counts, readUsageCounts(data['usage']));
        break;
      }
      case 'message_stop': {
        if (jsonTool !== undefined && !toolSeen && heldText !== '')
          yield { type: 'delta', content: heldText };
        const reason = mapStopReason(stopReason, jsonTool !== undefined);
        const matched = matchedStopSequence(stopReason, stopSequence);
        yield matched === undefined
          ? { type: 'finish', reason }
          : { type: 'finish', reason, stopSequence: matched };
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

/** A thinking block as content_block_start gives it: empty in practice, a redacted one whole. */
function openThinking(block: Record<string, unknown>): OpenThinking {
  if (block['type'] === 'redacted_thinking')
    return { text: '', signature: '', redacted: asString(block['data']) ?? '' };
  return { text: asString(block['thinking']) ?? '', signature: asString(block['signature']) ?? '' };
}

/** The finished block as the same part a whole answer gives (readThinkingBlock); none without its signature. */
function closedThinking(open: OpenThinking): ThinkingPart | undefined {
  if (open.redacted !== undefined) {
    return open.redacted === ''
      ? undefined
      : { type: 'thinking', vendor: 'anthropic', text: '', redacted: open.redacted };
  }
  if (open.signature === '') return undefined;
  return { type: 'thinking', vendor: 'anthropic', text: open.text, signature: open.signature };
}
