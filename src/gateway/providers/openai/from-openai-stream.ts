import type { ProviderSlot } from '../../../config/config-types.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type { ChatResult, ChatStreamEvent, FinishReason, ReportedUsage } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { readFinishReason, readOpenAIUsage } from './completion-fields.ts';
import { errorFromStreamChunk, invalidResponse } from './openai-error.ts';
import { OpenAIToolCallAssembler } from './openai-tool-calls.ts';

/** One server-sent event as the SSE parser gives it. */
export interface StreamMessage {
  data: string;
  event?: string | undefined;
}

/**
 * `chat.completion.chunk` events to ChatStreamEvents: `model` first (from the first chunk),
 * then a `delta` per piece of content, `finish` when a finish_reason arrives, and `usage` once
 * at the end, from the last chunk that carried it (the `include_usage` chunk with empty
 * `choices`; vLLM may repeat cumulative usage on every chunk, Groq puts it in `x_groq`).
 *
 * Tool calls stream as `delta.tool_calls` fragments (see OpenAIToolCallAssembler); each whole call
 * is sent as one `tool_call` event when its choice finishes, just before `finish` (or at the end
 * of the stream, should a server never send a finish_reason).
 *
 * The stream is complete at `data: [DONE]`; events after it are read but ignored, so the
 * connection is drained and can go back to the pool. A stream that ends with neither `[DONE]`
 * nor a finish_reason was cut, and fails as a connection error.
 */
export async function* fromOpenAIStream(
  slot: ProviderSlot,
  messages: AsyncIterable<StreamMessage>,
  requestedModel: string,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  let model: string | undefined;
  let finish: FinishReason | undefined;
  let refused = false;
  let done = false;
  let usage: ReportedUsage | undefined;
  let completionId: unknown;
  const tools = new OpenAIToolCallAssembler(slot);
  const iterator = messages[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<StreamMessage>;
      try {
        next = await iterator.next();
      } catch (error) {
        // The answer was complete; a connection that then fails is not the answer's problem.
        if (done) break;
        throw error;
      }
      if (next.done) break;
      if (done) continue;
      const data = next.value.data.trim();
      if (data === '[DONE]') {
        done = true;
        continue;
      }
      if (data === '') continue;
      const chunk = safeJson(data);
      if (!isRecord(chunk)) throw invalidResponse(slot, 'stream chunk is not a JSON object');
      if ((chunk['error'] !== undefined && chunk['error'] !== null) || next.value.event === 'error') {
        throw errorFromStreamChunk(slot, chunk);
      }
      completionId ??= chunk['id'];
      const named = chunk['model'];
      const chunkModel = typeof named === 'string' && named !== '' ? named : (model ?? requestedModel);
      if (chunkModel !== model) {
        model = chunkModel;
        yield { type: 'model', model };
      }
      usage = readOpenAIUsage(chunk['usage']) ?? readGroqUsage(chunk) ?? usage;
      const choices = chunk['choices'];
      if (choices === undefined || choices === null) continue;
      if (!Array.isArray(choices)) throw invalidResponse(slot, 'stream chunk choices is not a list');
      const choice: unknown = choices[0];
      if (choice === undefined) continue;
      if (!isRecord(choice)) throw invalidResponse(slot, 'stream chunk choice is not an object');
      const delta = choice['delta'];
      if (isRecord(delta)) {
        const content = delta['content'];
        if (typeof content === 'string' && content !== '') yield { type: 'delta', content };
        // A refusal streams in its own field; it is passed on as text, flagged at the finish.
        const refusal = delta['refusal'];
        if (typeof refusal === 'string' && refusal !== '') {
          refused = true;
          yield { type: 'delta', content: refusal };
        }
        tools.add(delta);
      }
      const reason = choice['finish_reason'];
      if (finish === undefined && reason !== undefined && reason !== null) {
        const calls = tools.take(completionId);
        for (const call of calls) yield { type: 'tool_call', call };
        finish = refused ? 'content_filter' : readFinishReason(reason);
        // As in a whole completion: calls made under a forced tool_choice come with `stop`.
        if (calls.length > 0 && finish === 'stop') finish = 'tool_calls';
        yield { type: 'finish', reason: finish };
      }
    }
  } finally {
    await iterator.return?.();
  }
  if (!done && finish === undefined) {
    throw new ProviderError({
      slot,
      failure: 'connection',
      detail: 'the stream ended before it was complete',
    });
  }
  for (const call of tools.take(completionId)) yield { type: 'tool_call', call };
  if (usage !== undefined) yield { type: 'usage', usage };
}

/** Groq reports stream usage in `x_groq.usage` on the last chunk. */
function readGroqUsage(chunk: Record<string, unknown>): ReportedUsage | undefined {
  const groq = chunk['x_groq'];
  return isRecord(groq) ? readOpenAIUsage(groq['usage']) : undefined;
}

/**
 * A whole completion as stream events, for a server that answers a stream request with plain
 * JSON (some proxies and older compatible servers ignore `stream: true`).
 */
export function eventsFromCompletion(result: ChatResult): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = [{ type: 'model', model: result.model }];
  if (result.content !== '') events.push({ type: 'delta', content: result.content });
  for (const call of result.toolCalls ?? []) events.push({ type: 'tool_call', call });
  events.push({ type: 'finish', reason: result.finishReason });
  if (result.usage !== undefined) events.push({ type: 'usage', usage: result.usage });
  return events;
}
