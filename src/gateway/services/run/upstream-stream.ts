import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type { ChatStreamEvent } from '../../providers/provider.ts';
import { answerMessage, type ChatAnswer, estimateChatUsage } from '../use-cases/run-chat.ts';
import type { ChatStream, StreamEvent } from '../use-cases/run-chat-stream.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { type FirstEvent, HeldStream } from './held-stream.ts';
import type { RequestRun } from './request-run.ts';

/**
 * One upstream stream of the gateway's chat after its first event (held-stream.ts): what it has
 * sent so far (the text, the tool calls, the model, why it stopped, the usage it reported) and
 * its events for the client, translated, ending with `done` (the whole answer) or `error`.
 */
export class UpstreamStream extends HeldStream<ChatStreamEvent, StreamEvent> {
  readonly start: ChatStream['start'];
  readonly #input: ChatInput;
  #content = '';
  readonly #toolCalls: ToolCall[] = [];
  readonly #thinking: ThinkingPart[] = [];
  #stopSequence: string | undefined;

  constructor(input: ChatInput, run: RequestRun, success: FirstEvent<ChatStreamEvent>) {
    super(run, success);
    this.#input = input;
    const first = success.value.first;
    let promptUsage: ReportedUsage | undefined;
    // Adapters that know the answering model say so first; the start event carries it, and the
    // prompt's counts when the upstream's first event had them (for the Anthropic door).
    if (!first.done && first.value.type === 'model') {
      this.model = first.value.model;
      promptUsage = first.value.promptUsage;
      this.pending = undefined;
    }
    this.start = { id: run.id, provider: success.candidate.provider, model: this.model };
    if (promptUsage !== undefined) this.start.promptUsage = promptUsage;
  }

  /** Deltas and tool calls as they come, then `done` or `error`; returned early, the client left. */
  async *events(): AsyncGenerator<StreamEvent, void, undefined> {
    const error = yield* this.read();
    if (error instanceof ClientClosedError) return;
    if (error !== undefined) {
      yield { event: 'error', data: error.toEnvelope() };
      return;
    }
    yield { event: 'done', data: this.#answer() };
  }

  protected override estimate(tokenizer: Tokenizer): Promise<ReportedUsage> {
    const input = this.#input;
    return estimateChatUsage(tokenizer, input.messages, this.#content, input.tools, this.#toolCalls);
  }

  /** Takes one upstream event into the tally; the event for the client, when it is one. */
  protected override take(event: ChatStreamEvent): StreamEvent | undefined {
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
        this.usage = event.usage;
        return undefined;
      case 'model':
        this.model = event.model;
        return undefined;
      case 'finish':
        this.finishReason = event.reason;
        this.#stopSequence = event.stopSequence;
        return undefined;
    }
  }

  #answer(): ChatAnswer {
    const run = this.run;
    const toolCalls = this.#toolCalls;
    const answer: ChatAnswer = {
      id: run.id,
      provider: this.start.provider,
      model: this.model,
      message: answerMessage(this.#content, toolCalls),
      // An adapter that never said why it stopped: the calls say it, else it simply ended.
      finishReason: this.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: run.usage(),
      latencyMs: run.elapsedMs(),
    };
    if (this.#stopSequence !== undefined) answer.stopSequence = this.#stopSequence;
    if (this.#thinking.length > 0) answer.thinking = [...this.#thinking];
    return answer;
  }
}
