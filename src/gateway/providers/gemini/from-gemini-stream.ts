import type { ProviderSlot } from '../../../config/config-types.ts';
import { safeJson } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type { ChatStreamEvent, ReportedUsage } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { MAX_STREAMED_TOOL_CALLS } from '../tool-arguments.ts';
import { invalid, readGeminiAnswer, withCalls } from './from-gemini-response.ts';
import { geminiErrorFrom } from './gemini-error.ts';
import { settleCallId } from './gemini-function-calls.ts';
import { geminiModelId } from './gemini-model.ts';

/**
 * A `streamGenerateContent?alt=sse` body to gateway stream events. Every SSE data event is a
 * whole GenerateContentResponse holding the next piece of text; the last one carries the finish
 * reason. Events: `model` first (once the upstream has really answered), a `delta` per chunk with
 * text, `finish` when the finish reason appears, and `usage` at the end. usageMetadata is a
 * running total, so the last one seen is the answer's usage.
 *
 * Function calls arrive whole, one functionCall part each, so each is sent as a `tool_call` event
 * as soon as its chunk arrives; calls without a Gemini id are numbered across the whole stream
 * (see settleCallId). A STOP after calls is `tool_calls`.
 */
export async function* fromGeminiStream(
  events: AsyncIterable<{ data: string }>,
  requestedModel: string,
  slot: ProviderSlot,
  requestId = 'gemini',
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  let started = false;
  let finished = false;
  let usage: ReportedUsage | undefined;
  let calls = 0;
  let idBase: string | undefined;
  for await (const event of events) {
    if (event.data.trim() === '') continue;
    const chunk = safeJson(event.data);
    if (chunk === undefined) throw invalid(slot, 'stream chunk is not JSON');
    // An error after the 200 status arrives as an event holding a google.rpc.Status.
    if (isRecord(chunk) && chunk['error'] !== undefined) throw streamError(slot, chunk);
    const answer = readGeminiAnswer(chunk, slot);
    if (!started) {
      started = true;
      yield { type: 'model', model: answer.modelVersion ?? geminiModelId(requestedModel) };
    }
    if (answer.text !== '') yield { type: 'delta', content: answer.text };
    idBase ??= answer.responseId ?? requestId;
    for (const call of answer.calls) {
      if (calls >= MAX_STREAMED_TOOL_CALLS)
        throw invalid(slot, `more than ${MAX_STREAMED_TOOL_CALLS} tool calls in one answer`);
      yield { type: 'tool_call', call: settleCallId(call, idBase, calls++) };
    }
    if (answer.usage !== undefined) usage = answer.usage;
    if (answer.finishReason !== undefined && !finished) {
      finished = true;
      yield { type: 'finish', reason: withCalls(answer.finishReason, calls) };
    }
  }
  if (!finished) {
    // Gemini always ends a complete answer with a finish reason: without one the stream was cut.
    throw new ProviderError({ slot, failure: 'connection', detail: 'stream ended without a finish reason' });
  }
  if (usage !== undefined) yield { type: 'usage', usage };
}

function streamError(slot: ProviderSlot, chunk: Record<string, unknown>): ProviderError {
  const error = chunk['error'];
  const code = isRecord(error) ? error['code'] : undefined;
  const status = typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 ? code : 500;
  return geminiErrorFrom(slot, status, {}, chunk);
}
