import { ApiError, type ErrorEnvelope } from '../../platform/errors.ts';
import type { FinishReason, ToolCall } from '../domain/messages.ts';
import type { ReportedUsage } from '../domain/reported-usage.ts';
import type { ChatInput } from '../domain/use-case-inputs.ts';
import type { ChatStreamEvent } from '../providers/provider.ts';
import { isProviderError } from '../providers/provider-error.ts';
import { ClientClosedError } from './client-closed-error.ts';
import type { RequestRun } from './request-run.ts';
import { admitChat, answerMessage, type ChatAnswer, estimateChatUsage, toChatCall } from './run-chat.ts';
import { toGatewayError } from './upstream-error-mapping.ts';

export type StreamEvent =
  | { event: 'delta'; data: { content: string } }
  /** One complete tool call, as the adapter assembled it. */
  | { event: 'tool_call'; data: ToolCall }
  | { event: 'done'; data: ChatAnswer }
  | { event: 'error'; data: ErrorEnvelope };

export interface ChatStream {
  /**
   * `promptUsage`: the prompt's counts where the upstream's first event had them (an Anthropic
   * upstream's), for the Anthropic door's message_start; not part of the native `start` event.
   */
  start: { id: string; provider: string; model: string; promptUsage?: ReportedUsage };
  /** Deltas and tool calls as the upstream sends them, then exactly one `done` or `error`. */
  events: AsyncGenerator<StreamEvent, void, undefined>;
}

type FirstEvent = Awaited<ReturnType<typeof callFirstEvent>>;

/**
 * POST /v1/chat with `stream: true`. Resolves once an upstream has sent its first event, so
 * retries and fallback happen before any byte reaches the client; rejects with the gateway error
 * when no candidate answers. After that, failures end the stream with an `error` event. The run
 * finishes when no candidate answers, or when the stream ends (completed, failed, or left by
 * the client, since the writer always returns the generator).
 */
export async function openChatStream(input: ChatInput, run: RequestRun): Promise<ChatStream> {
  await admitChat(input, run);
  let success: FirstEvent;
  try {
    success = await callFirstEvent(input, run);
  } catch (error) {
    run.finish(error);
    throw error;
  }
  run.markFirstByte();
  const first = success.value.first;
  let model = success.candidate.model;
  let pending: ChatStreamEvent | undefined = first.done ? undefined : first.value;
  let promptUsage: ReportedUsage | undefined;
  // Adapters that know the answering model say so first; the start event carries it.
  if (pending?.type === 'model') {
    model = pending.model;
    promptUsage = pending.promptUsage;
    pending = undefined;
  }
  const start: ChatStream['start'] = { id: run.id, provider: success.candidate.provider, model };
  if (promptUsage !== undefined) start.promptUsage = promptUsage;
  return { start, events: streamEvents(input, run, success, start, pending) };
}

async function* streamEvents(
  input: ChatInput,
  run: RequestRun,
  success: FirstEvent,
  start: ChatStream['start'],
  pending: ChatStreamEvent | undefined,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { iterator, first } = success.value;
  let model = start.model;
  let content = '';
  const toolCalls: ToolCall[] = [];
  let finishReason: FinishReason | undefined;
  let stopSequence: string | undefined;
  let usage: ReportedUsage | undefined;
  let failure: unknown;
  let error: unknown;
  try {
    let next: IteratorResult<ChatStreamEvent> | undefined =
      pending === undefined ? undefined : { done: false, value: pending };
    if (first.done) next = first;
    for (;;) {
      next ??= await iterator.next();
      if (next.done) break;
      const event = next.value;
      next = undefined;
      if (event.type === 'delta') {
        if (event.content === '') continue;
        content += event.content;
        yield { event: 'delta', data: { content: event.content } };
      } else if (event.type === 'tool_call') {
        toolCalls.push(event.call);
        yield { event: 'tool_call', data: event.call };
      } else if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'model') model = event.model;
      else if (event.type === 'finish') {
        finishReason = event.reason;
        stopSequence = event.stopSequence;
      }
    }
  } catch (thrown) {
    failure = run.signal.aborted ? new ClientClosedError() : thrown;
  } finally {
    if (failure === undefined && run.signal.aborted) failure = new ClientClosedError();
    run.markDone();
    await run.account({
      provider: start.provider,
      adapter: success.adapter,
      model,
      // A stream cut short has no trustworthy usage: estimate what was seen.
      reported: failure === undefined ? usage : undefined,
      estimate: (tokenizer) => estimateChatUsage(tokenizer, input.messages, content, input.tools, toolCalls),
      startedAt: success.startedAt,
      outcome: failure === undefined ? 'ok' : 'stream_failed',
      finishReason,
    });
    if (failure !== undefined) {
      error = failure instanceof ClientClosedError ? failure : toMidStreamError(failure, start.provider);
    }
    run.finish(error);
    await iterator.return?.();
  }
  if (error instanceof ApiError) {
    yield { event: 'error', data: error.toEnvelope() };
    return;
  }
  if (error !== undefined) return;
  const answer: ChatAnswer = {
    id: run.id,
    provider: start.provider,
    model,
    message: answerMessage(content, toolCalls),
    // An adapter that never said why it stopped: the calls say it, else it simply ended.
    finishReason: finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: run.usage(),
    latencyMs: run.elapsedMs(),
  };
  if (stopSequence !== undefined) answer.stopSequence = stopSequence;
  yield { event: 'done', data: answer };
}

function callFirstEvent(input: ChatInput, run: RequestRun) {
  return run.call(run.candidates, async (adapter, candidate, context) => {
    const iterator = adapter
      .streamChat(toChatCall(input, candidate, adapter.capabilities), context)
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    return { iterator, first };
  });
}

function toMidStreamError(error: unknown, provider: string): ApiError {
  if (isProviderError(error)) {
    const mapped = toGatewayError(error, [
      { provider, model: '', status: error.status ?? null, failure: error.failure },
    ]);
    if (mapped instanceof ApiError) return mapped;
  }
  return error instanceof ApiError
    ? error
    : new ApiError('upstream_error', `${provider} failed during the stream`, { cause: error });
}
