import type { ErrorEnvelope } from '../../../platform/errors.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { StreamEventOf } from '../../services/use-cases/run-chat-stream.ts';
import { openAIErrorBodyFromEnvelope } from '../openai-error-body.ts';
import {
  type CompletedChat,
  type OpenAIFinishReason,
  toOpenAIFinishReason,
  toOpenAIToolCalls,
  toOpenAIUsage,
} from './to-openai-completion.ts';

/** The chat use case's stream events, as the door reads them. */
export type ChatStreamEvent = StreamEventOf<CompletedChat>;

export interface ChunkOptions {
  id: string;
  model: string;
  /** Unix seconds, the same on every chunk. */
  created: number;
  includeUsage: boolean;
}

/** The stream's end: OpenAI's terminator, after which the connection closes. */
export const DONE_FRAME = 'data: [DONE]\n\n';

/**
 * `chat.completion.chunk` frames as OpenAI streams them (`ChatCompletionChunk` in the `openai`
 * package): `data:` lines with no event name, the first delta carrying the role, content and
 * tool-call deltas, a last chunk with an empty delta and the finish reason, then, with
 * `include_usage`, a chunk with `choices: []` and the usage (every earlier chunk says
 * `"usage":null`), and `data: [DONE]`. The id, created time and model are the same on every chunk,
 * so each frame is that fixed head, the delta's JSON and a fixed tail.
 */
export class ChunkEncoder {
  readonly #head: string;
  readonly #tail: string;
  readonly #options: ChunkOptions;

  constructor(options: ChunkOptions) {
    this.#options = options;
    this.#head =
      `data: {"id":${JSON.stringify(options.id)},"object":"chat.completion.chunk",` +
      `"created":${options.created},"model":${JSON.stringify(options.model)},"choices":[{"index":0,"delta":`;
    this.#tail = options.includeUsage
      ? ',"logprobs":null,"finish_reason":null}],"usage":null}\n\n'
      : ',"logprobs":null,"finish_reason":null}]}\n\n';
  }

  role(): string {
    return `${this.#head}{"role":"assistant","content":"","refusal":null}${this.#tail}`;
  }

  content(text: string): string {
    return `${this.#head}{"content":${JSON.stringify(text)}}${this.#tail}`;
  }

  /** A complete call in one delta: id, type and name with the whole arguments text. */
  toolCall(index: number, call: ToolCall): string {
    const [openAICall] = toOpenAIToolCalls([call]);
    return `${this.#head}${JSON.stringify({ tool_calls: [{ index, ...openAICall }] })}${this.#tail}`;
  }

  finish(reason: OpenAIFinishReason): string {
    const usage = this.#options.includeUsage ? ',"usage":null' : '';
    return `${this.#head}{},"logprobs":null,"finish_reason":"${reason}"}]${usage}}\n\n`;
  }

  /**
   * The usage chunk: OpenAI's usage plus `cost_usd`, the request's cost in US dollars (OpenAI's
   * body has no cost field; CONTRACT 4.2 puts it here).
   */
  usage(usage: ResponseUsage): string {
    const { id, created, model } = this.#options;
    const body = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [],
      usage: { ...toOpenAIUsage(usage), cost_usd: usage.estimatedCost },
    };
    return `data: ${JSON.stringify(body)}\n\n`;
  }

  /** Everything after the last delta of a completed answer, [DONE] included. */
  end(answer: CompletedChat, hasToolCalls: boolean): string {
    const reason = toOpenAIFinishReason(answer.finishReason, hasToolCalls);
    const usage = this.#options.includeUsage ? this.usage(answer.usage) : '';
    return this.finish(reason) + usage + DONE_FRAME;
  }
}

/**
 * A failure after the stream began. OpenAI's reference documents no error event for Chat
 * Completions; what its servers and its SDKs agree on is a `data:` line holding the error object
 * (`{"error": {message, type, param, code}}`), which the `openai` SDK's stream reader raises as
 * an `APIError`. No `[DONE]` follows: the stream did not complete, and a client that skips the
 * error line must not read the text so far as a whole answer.
 */
export function errorFrame(envelope: ErrorEnvelope): string {
  return `data: ${JSON.stringify(openAIErrorBodyFromEnvelope(envelope))}\n\n`;
}

/**
 * The chat use case's stream as OpenAI frames: the role chunk, then one frame per delta or tool
 * call as it comes; the generator's return value is the last frames (finish, usage, [DONE], or
 * the error), which the writer sends with the end of the response.
 */
export async function* toOpenAIChunks(
  events: AsyncIterable<ChatStreamEvent>,
  encoder: ChunkEncoder,
): AsyncGenerator<string, string, undefined> {
  yield encoder.role();
  let calls = 0;
  for await (const event of events) {
    switch (event.event) {
      case 'delta':
        yield encoder.content(event.data.content);
        break;
      case 'tool_call':
        yield encoder.toolCall(calls++, event.data);
        break;
      case 'thinking':
        // Chat Completions has no place for another vendor's signed thinking.
        break;
      case 'done':
        return encoder.end(event.data, calls > 0 || (event.data.message.toolCalls?.length ?? 0) > 0);
      case 'error':
        return errorFrame(event.data);
    }
  }
  // The events ended with neither `done` nor `error`: the client left, nobody reads this.
  return '';
}
