import type { ApiError } from '../../../platform/errors.ts';
import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type { ChatStreamEvent } from '../../providers/provider.ts';
import type { CallSuccess } from '../upstream/upstream-caller.ts';
import { answerMessage, type ChatAnswer, estimateChatUsage } from '../use-cases/run-chat.ts';
import type { ChatStream, StreamEvent } from '../use-cases/run-chat-stream.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { drainStream, midStreamError } from './mid-stream.ts';
import type { RequestRun } from './request-run.ts';
import type { OpenWork } from './request-run-inputs.ts';

/** What the first successful call hands over: the upstream's events and the first of them. */
type FirstEvent = CallSuccess<{
  iterator: AsyncIterator<ChatStreamEvent>;
  first: IteratorResult<ChatStreamEvent>;
}>;

/**
 * How long, and for how many events, a stream whose client left is still read: the upstream's
 * events that had already arrived (an aborted upstream read hands out what it had queued, then
 * fails), so that the request is billed for what the upstream generated rather than for what the
 * client happened to read. An adapter that ignored the abort would otherwise hold the run open.
 */

/**
 * One upstream stream after its first event: what it has sent so far (the text, the tool calls,
 * the model, why it stopped, the usage it reported), its events for the client, and its end,
 * which accounts that tally and finishes the run once, whether the events ran to their end, the
 * writer returned them early, or the run was closed before anyone read them.
 */
export class UpstreamStream implements OpenWork {
  readonly start: ChatStream['start'];
  readonly #input: ChatInput;
  readonly #run: RequestRun;
  readonly #success: FirstEvent;
  readonly #iterator: AsyncIterator<ChatStreamEvent>;
  /** The first call's result, not yet taken into the tally. */
  #pending: IteratorResult<ChatStreamEvent> | undefined;
  #model: string;
  #content = '';
  readonly #toolCalls: ToolCall[] = [];
  readonly #thinking: ThinkingPart[] = [];
  #finishReason: FinishReason | undefined;
  #stopSequence: string | undefined;
  #usage: ReportedUsage | undefined;
  #ending: Promise<ApiError | undefined> | undefined;

  constructor(input: ChatInput, run: RequestRun, success: FirstEvent) {
    this.#input = input;
    this.#run = run;
    this.#success = success;
    this.#iterator = success.value.iterator;
    const first = success.value.first;
    let model = success.candidate.model;
    let promptUsage: ReportedUsage | undefined;
    this.#pending = first;
    // Adapters that know the answering model say so first; the start event carries it, and the
    // prompt's counts when the upstream's first event had them (for the Anthropic door).
    if (!first.done && first.value.type === 'model') {
      model = first.value.model;
      promptUsage = first.value.promptUsage;
      this.#pending = undefined;
    }
    this.#model = model;
    this.start = { id: run.id, provider: success.candidate.provider, model };
    if (promptUsage !== undefined) this.start.promptUsage = promptUsage;
  }

  /** Deltas and tool calls as they come, then `done` or `error`; returned early, the client left. */
  async *events(): AsyncGenerator<StreamEvent, void, undefined> {
    let cause: unknown;
    let completed = false;
    let error: ApiError | undefined;
    try {
      for (;;) {
        const next = this.#pending ?? (await this.#iterator.next());
        this.#pending = undefined;
        if (next.done) {
          completed = true;
          break;
        }
        const event = this.#take(next.value);
        if (event !== undefined) yield event;
      }
    } catch (thrown) {
      cause = thrown;
    } finally {
      // Neither completed nor failed: the reader returned the events, which only a client gone does.
      error = await this.end(completed ? undefined : (cause ?? new ClientClosedError()));
    }
    if (error instanceof ClientClosedError) return;
    if (error !== undefined) {
      yield { event: 'error', data: error.toEnvelope() };
      return;
    }
    yield { event: 'done', data: this.#answer() };
  }

  /** Accounts the stream and finishes the run, once; the error it finished with, if any. */
  end(cause: unknown): Promise<ApiError | undefined> {
    this.#ending ??= this.#finish(cause);
    return this.#ending;
  }

  async #finish(cause: unknown): Promise<ApiError | undefined> {
    const run = this.#run;
    const provider = this.start.provider;
    let error: ApiError | undefined;
    if (cause instanceof ClientClosedError || run.signal.aborted) error = new ClientClosedError();
    else if (cause !== undefined) error = midStreamError(cause, provider);
    let drained = true;
    if (error instanceof ClientClosedError) {
      run.clientLeft();
      drained = await drainStream(this.#iterator, this.#pending, (event) => this.#take(event));
      this.#pending = undefined;
    }
    run.markDone();
    const input = this.#input;
    await run.account({
      provider,
      adapter: this.#success.adapter,
      model: this.#model,
      // Adapters report usage once, at the end: when it came, it is the whole answer's.
      reported: this.#usage,
      estimate: (tokenizer) =>
        estimateChatUsage(tokenizer, input.messages, this.#content, input.tools, this.#toolCalls),
      startedAt: this.#success.startedAt,
      outcome:
        error === undefined ? 'ok' : error instanceof ClientClosedError ? 'client_closed' : 'stream_failed',
      finishReason: this.#finishReason,
    });
    run.finish(error);
    // A read still waiting on an adapter that ignored the abort: not waited for.
    if (drained) await this.#iterator.return?.();
    else void this.#iterator.return?.()?.catch(() => {});
    return error;
  }

  /** Takes one upstream event into the tally; the event for the client, when it is one. */
  #take(event: ChatStreamEvent): StreamEvent | undefined {
    switch (event.type) {
      case 'delta':
        if (event.content === '') return undefined;
        this.#content += event.content;
        return { event: 'delta', data: { content: event.content } };
      case 'tool_call':
        this.#toolCalls.push(event.call);
        return { event: 'tool_call', data: event.call };
      case 'thinking':
        this.#thinking.push(event.part);
        return { event: 'thinking', data: event.part };
      case 'usage':
        this.#usage = event.usage;
        return undefined;
      case 'model':
        this.#model = event.model;
        return undefined;
      case 'finish':
        this.#finishReason = event.reason;
        this.#stopSequence = event.stopSequence;
        return undefined;
    }
  }

  #answer(): ChatAnswer {
    const run = this.#run;
    const toolCalls = this.#toolCalls;
    const answer: ChatAnswer = {
      id: run.id,
      provider: this.start.provider,
      model: this.#model,
      message: answerMessage(this.#content, toolCalls),
      // An adapter that never said why it stopped: the calls say it, else it simply ended.
      finishReason: this.#finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: run.usage(),
      latencyMs: run.elapsedMs(),
    };
    if (this.#stopSequence !== undefined) answer.stopSequence = this.#stopSequence;
    if (this.#thinking.length > 0) answer.thinking = [...this.#thinking];
    return answer;
  }
}
