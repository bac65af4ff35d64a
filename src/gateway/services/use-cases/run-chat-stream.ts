import type { ErrorEnvelope } from '../../../platform/errors.ts';
import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type { RequestRun } from '../run/request-run.ts';
import { UpstreamStream } from '../run/upstream-stream.ts';
import { admitChat, type ChatAnswer, toChatCall } from './run-chat.ts';

/** A chat stream's events; a door's translation may read less of the answer than `done` holds. */
export type StreamEventOf<Answer> =
  | { event: 'delta'; data: { content: string } }
  /** One complete tool call, as the adapter assembled it. */
  | { event: 'tool_call'; data: ToolCall }
  /**
   * One signed thinking block, whole, before the text it led to (an Anthropic upstream's): for the
   * Responses door's reasoning items; the other doors' wires have no place for it and skip it.
   */
  | { event: 'thinking'; data: ThinkingPart }
  | { event: 'done'; data: Answer }
  | { event: 'error'; data: ErrorEnvelope };

export type StreamEvent = StreamEventOf<ChatAnswer>;

export interface ChatStream {
  /**
   * `promptUsage`: the prompt's counts where the upstream's first event had them (an Anthropic
   * upstream's), for the Anthropic door's message_start; not part of the native `start` event.
   */
  start: { id: string; provider: string; model: string; promptUsage?: ReportedUsage };
  /** Deltas and tool calls as the upstream sends them, then exactly one `done` or `error`. */
  events: AsyncGenerator<StreamEvent, void, undefined>;
}

/**
 * POST /v1/chat with `stream: true`. Resolves once an upstream has sent its first event, so
 * retries and fallback happen before any byte reaches the client; rejects with the gateway error
 * (the run finished with it) when no candidate answers. After that, failures end the stream with
 * an `error` event.
 *
 * The open stream is held by the run: it ends (accounted, the run finished, the upstream let go)
 * when its events end, however they end, or when the edge closes the run first. A writer may
 * return `events` before it pulled a single one (the client gone by the first frame): the run
 * still records the request.
 */
export async function openChatStream(input: ChatInput, run: RequestRun): Promise<ChatStream> {
  await admitChat(input, run);
  let success: Awaited<ReturnType<typeof callFirstEvent>>;
  try {
    success = await callFirstEvent(input, run);
  } catch (error) {
    run.finish(error);
    throw error;
  }
  run.markFirstByte();
  const stream = new UpstreamStream(input, run, success);
  run.hold(stream);
  return { start: stream.start, events: stream.events() };
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

/** A whole answer as a stream (a door that streams an answer it could not stream: JSON output). */
export function answerAsStream(answer: ChatAnswer): ChatStream {
  return {
    start: { id: answer.id, provider: answer.provider, model: answer.model },
    events: answerEvents(answer),
  };
}

async function* answerEvents(answer: ChatAnswer): AsyncGenerator<StreamEvent, void, undefined> {
  for (const part of answer.thinking ?? []) yield { event: 'thinking', data: part };
  if (answer.message.content !== '') yield { event: 'delta', data: { content: answer.message.content } };
  for (const call of answer.message.toolCalls ?? []) yield { event: 'tool_call', data: call };
  yield { event: 'done', data: answer };
}
