import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderSlot, SettingsOfKind, SimulatedSettings } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { fnv1a, seededRandom } from '../../domain/hash-seed.ts';
import { cutAtStopSequence } from '../../domain/stop-sequences.ts';
import {
  countChatInputTokens,
  countChatOutputTokens,
  type TokenizedAnswer,
  type Tokenizer,
} from '../../domain/token-count.ts';
import type {
  CallContext,
  ChatCall,
  ChatMessage,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { sampleFromSchema } from './sample-from-schema.ts';
import { readDirectives, type SimulatedDirectives, type SimulatedFault } from './simulated-directives.ts';
import { simulateEmbedding } from './simulated-embedding.ts';
import { promptDirectives } from './simulated-prompt-directives.ts';
import { simulatedSeed } from './simulated-seed.ts';
import { simulateReply } from './simulated-text.ts';
import { simulateToolCalls } from './simulated-tool-calls.ts';

/** Every model a simulated slot answers with carries this prefix, so no answer passes for a real model's. */
export function simulatedModelName(model: string): string {
  return model.startsWith('simulated') ? model : `simulated-${model}`;
}

/**
 * The built-in provider: deterministic answers, real token counts, chunked streaming, hashed
 * embeddings, schema-conforming JSON, and latency or faults on demand. No network.
 */
export class SimulatedProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'simulated' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.simulated.capabilities;
  readonly #settings: SimulatedSettings;
  readonly #tokenizer: Tokenizer;

  constructor(settings: SettingsOfKind<'simulated'>, tokenizer: Tokenizer) {
    this.slot = settings.slot;
    this.#settings = settings.simulated;
    this.#tokenizer = tokenizer;
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const directives = this.#directives(context, call.messages);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'chat');
    const { result } = await this.#answer(call, context, directives, undefined);
    return result;
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const directives = this.#directives(context, call.messages);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'stream');
    const { result: answer, chunks } = await this.#answer(
      call,
      context,
      directives,
      this.#settings.chunkTokens,
    );
    yield { type: 'model', model: answer.model };
    for (const toolCall of answer.toolCalls ?? []) {
      yield { type: 'tool_call', call: toolCall };
    }
    const chunkDelay = directives.chunkDelayMs ?? this.#settings.chunkDelayMs;
    const cut = this.#faultActive(directives, context) && directives.fault === 'stream_cut';
    let sentChunks = 0;
    for (const text of chunks) {
      if (sentChunks > 0) await this.#delay(chunkDelay, context.signal);
      yield { type: 'delta', content: text };
      sentChunks++;
      if (cut && sentChunks === 2) {
        throw new ProviderError({ slot: this.slot, failure: 'connection', detail: 'simulated stream cut' });
      }
    }
    yield finishEvent(answer);
    if (answer.usage !== undefined) yield { type: 'usage', usage: answer.usage };
  }

  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const directives = this.#directives(context);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'embed');
    // As real models do, `dimensions` shortens the vectors and never lengthens them.
    const dimensions = Math.min(call.dimensions ?? Number.POSITIVE_INFINITY, this.#settings.embedDimensions);
    return {
      model: simulatedModelName(call.model),
      vectors: call.inputs.map((text) => simulateEmbedding(text, dimensions)),
      usage: { inputTokens: await this.#tokens(this.#tokenizer.count(call.inputs)) },
    };
  }

  /**
   * The answer, and with `chunkTokens` its text in chunks for a stream. The input's count and the
   * answer's tokens are asked of the tokenizer together: one wait for the two.
   */
  async #answer(
    call: ChatCall,
    context: CallContext,
    directives: SimulatedDirectives,
    chunkTokens: number | undefined,
  ): Promise<{ result: ChatResult; chunks: string[] }> {
    const tokenizer = this.#tokenizer;
    const seed = simulatedSeed(call.messages);
    const countInput = () => this.#tokens(countChatInputTokens(tokenizer, call.messages, call.tools));
    const toolCalls = call.jsonSchema === undefined ? simulateToolCalls(call, directives, seed) : undefined;
    if (toolCalls !== undefined) {
      // A tool call is the whole answer, never cut by maxTokens (a cut call would not parse).
      const [inputTokens, outputTokens] = await Promise.all([
        countInput(),
        this.#tokens(countChatOutputTokens(tokenizer, '', toolCalls)),
      ]);
      const result: ChatResult = {
        model: simulatedModelName(call.model),
        content: '',
        toolCalls,
        finishReason: 'tool_calls',
        usage: { inputTokens, outputTokens },
      };
      return { result, chunks: [] };
    }
    let content: string;
    if (call.jsonSchema !== undefined) {
      const broken = this.#faultActive(directives, context) && directives.fault === 'invalid_json';
      const value = sampleFromSchema(call.jsonSchema.schema, seededRandom(seed));
      content = broken ? `{"answer": ${JSON.stringify(value)}` : JSON.stringify(value);
    } else {
      content = directives.reply ?? simulateReply(call.messages, seed);
    }
    // Cut before tokenizing: the text a stop sequence ends is what maxTokens then counts, so
    // whichever comes first ends the answer, and stream and answer share one cut.
    const stopped = cutAtStopSequence(content, call.stop);
    const [inputTokens, answer] = await Promise.all([
      countInput(),
      this.#tokens(tokenizer.tokenizeAnswer(stopped.text, { maxTokens: call.maxTokens, chunkTokens })),
    ]);
    const result: ChatResult = {
      model: simulatedModelName(call.model),
      content: answer.content,
      finishReason: answer.truncated ? 'length' : 'stop',
      usage: { inputTokens, outputTokens: answer.tokens },
    };
    if (!answer.truncated && stopped.matched !== undefined) result.stopSequence = stopped.matched;
    return { result, chunks: answer.chunks ?? [] };
  }

  /** A tokenizer's answer, or the failure an upstream's would be: retryable, so another try or slot may serve. */
  async #tokens<T extends number | TokenizedAnswer>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw new ProviderError({
        slot: this.slot,
        failure: 'http',
        status: 503,
        detail: 'the simulated provider could not tokenize',
        cause: error,
      });
    }
  }

  /** The request's directives: its prompt's `<simulated>` block, `metadata.simulated` over it. */
  #directives(context: CallContext, messages?: readonly ChatMessage[]): SimulatedDirectives {
    if (!this.#settings.allowRequestDirectives) return {};
    const fromPrompt = messages === undefined ? undefined : promptDirectives(messages);
    if (fromPrompt === undefined) return readDirectives(context.metadata);
    const fromMetadata = context.metadata?.['simulated'];
    const merged = typeof fromMetadata === 'object' && fromMetadata !== null ? fromMetadata : {};
    return readDirectives({ simulated: { ...fromPrompt, ...merged } });
  }

  #faultActive(directives: SimulatedDirectives, context: CallContext): boolean {
    if (directives.fault === undefined) return false;
    if (directives.slots !== undefined && !directives.slots.includes(this.slot)) return false;
    return directives.faultAttempts === undefined || context.attempt < directives.faultAttempts;
  }

  #raiseFault(
    directives: SimulatedDirectives,
    context: CallContext,
    operation: 'chat' | 'stream' | 'embed',
  ): void {
    if (this.#faultActive(directives, context)) {
      const fault = directives.fault as SimulatedFault;
      const error = faultError(this.slot, fault, operation);
      if (error !== undefined) throw error;
    }
    const rate = this.#settings.failureRate;
    if (rate > 0 && seededRandom(fnv1a(`${context.requestId}:${context.attempt}:${this.slot}`))() < rate) {
      throw new ProviderError({
        slot: this.slot,
        failure: 'http',
        status: 503,
        detail: 'simulated random failure',
      });
    }
  }

  async #delay(ms: number, signal: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, { signal });
    } catch (error) {
      throw new ProviderError({ slot: this.slot, failure: 'aborted', cause: error });
    }
  }
}

function finishEvent(answer: ChatResult): ChatStreamEvent {
  return answer.stopSequence === undefined
    ? { type: 'finish', reason: answer.finishReason }
    : { type: 'finish', reason: answer.finishReason, stopSequence: answer.stopSequence };
}

function faultError(slot: ProviderSlot, fault: SimulatedFault, operation: string): ProviderError | undefined {
  const detail = `simulated ${fault.replace('_', ' ')}`;
  switch (fault) {
    case 'server_error':
      return new ProviderError({ slot, failure: 'http', status: 500, detail });
    case 'overloaded':
      return new ProviderError({ slot, failure: 'http', status: 503, detail });
    case 'rate_limited':
      return new ProviderError({ slot, failure: 'http', status: 429, retryAfterMs: 10, detail });
    case 'quota_exceeded':
      return new ProviderError({ slot, failure: 'http', status: 429, retryable: false, detail });
    case 'bad_request':
      return new ProviderError({ slot, failure: 'http', status: 400, detail });
    case 'context_overflow': {
      // As a vendor refuses a prompt past the window: each door then answers in its clients' form.
      const message = "the prompt is longer than the simulated model's context window (a fault directive)";
      return new ProviderError({
        slot,
        failure: 'http',
        status: 400,
        detail,
        upstreamMessage: message,
        overflow: { kind: 'context_overflow', promptTokens: undefined, maxTokens: undefined, message },
      });
    }
    case 'unauthorized':
      return new ProviderError({ slot, failure: 'http', status: 401, detail });
    case 'timeout':
      return new ProviderError({ slot, failure: 'timeout', detail });
    case 'connection':
      return new ProviderError({ slot, failure: 'connection', detail });
    case 'stream_cut':
      // Only a stream can be cut; a plain call fails as a broken connection.
      return operation === 'stream' ? undefined : new ProviderError({ slot, failure: 'connection', detail });
    case 'invalid_json':
      return undefined;
  }
}
