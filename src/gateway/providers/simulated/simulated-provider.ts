import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderSlot, SettingsOfKind, SimulatedSettings } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { fnv1a, seededRandom } from '../../domain/hash-seed.ts';
import {
  countChatInputTokens,
  countChatOutputTokens,
  loadTokenizer,
  type Tokenizer,
} from '../../domain/token-count.ts';
import type {
  CallContext,
  ChatCall,
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

  constructor(settings: SettingsOfKind<'simulated'>) {
    this.slot = settings.slot;
    this.#settings = settings.simulated;
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const directives = this.#directives(context);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'chat');
    const tokenizer = await loadTokenizer();
    const { result } = await this.#answer(call, context, directives, tokenizer);
    return result;
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const directives = this.#directives(context);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'stream');
    const tokenizer = await loadTokenizer();
    const { result: answer, tokens } = await this.#answer(call, context, directives, tokenizer);
    yield { type: 'model', model: answer.model };
    for (const toolCall of answer.toolCalls ?? []) {
      yield { type: 'tool_call', call: toolCall };
    }
    const chunkDelay = directives.chunkDelayMs ?? this.#settings.chunkDelayMs;
    const cut = this.#faultActive(directives, context) && directives.fault === 'stream_cut';
    let pending: number[] = [];
    let sentChunks = 0;
    for (let i = 0; i < tokens.length; i++) {
      pending.push(tokens[i] as number);
      const last = i === tokens.length - 1;
      if (pending.length < this.#settings.chunkTokens && !last) continue;
      let text = tokenizer.decode(pending);
      // A chunk ending inside a multi-byte character waits for the next token.
      if (text.endsWith('\uFFFD') && !last) continue;
      // The end of an answer cut inside a character: dropped, as the answer's text drops it.
      if (last && answer.finishReason === 'length') text = text.replace(/\uFFFD+$/, '');
      pending = [];
      if (sentChunks > 0) await this.#delay(chunkDelay, context.signal);
      yield { type: 'delta', content: text };
      sentChunks++;
      if (cut && sentChunks === 2) {
        throw new ProviderError({ slot: this.slot, failure: 'connection', detail: 'simulated stream cut' });
      }
    }
    yield { type: 'finish', reason: answer.finishReason };
    if (answer.usage !== undefined) yield { type: 'usage', usage: answer.usage };
  }

  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const directives = this.#directives(context);
    await this.#delay(directives.latencyMs ?? this.#settings.latencyMs, context.signal);
    this.#raiseFault(directives, context, 'embed');
    const tokenizer = await loadTokenizer();
    // As real models do, `dimensions` shortens the vectors and never lengthens them.
    const dimensions = Math.min(call.dimensions ?? Number.POSITIVE_INFINITY, this.#settings.embedDimensions);
    return {
      model: simulatedModelName(call.model),
      vectors: call.inputs.map((text) => simulateEmbedding(text, dimensions)),
      usage: { inputTokens: await tokenizer.count(call.inputs) },
    };
  }

  /** The answer, and its tokens for streaming. */
  async #answer(
    call: ChatCall,
    context: CallContext,
    directives: SimulatedDirectives,
    tokenizer: Tokenizer,
  ): Promise<{ result: ChatResult; tokens: number[] }> {
    const seed = fnv1a(JSON.stringify(call.messages));
    const inputTokens = await countChatInputTokens(tokenizer, call.messages, call.tools);
    const toolCalls = call.jsonSchema === undefined ? simulateToolCalls(call, directives, seed) : undefined;
    if (toolCalls !== undefined) {
      // A tool call is the whole answer, never cut by maxTokens (a cut call would not parse).
      const result: ChatResult = {
        model: simulatedModelName(call.model),
        content: '',
        toolCalls,
        finishReason: 'tool_calls',
        usage: { inputTokens, outputTokens: await countChatOutputTokens(tokenizer, '', toolCalls) },
      };
      return { result, tokens: [] };
    }
    let content: string;
    if (call.jsonSchema !== undefined) {
      const broken = this.#faultActive(directives, context) && directives.fault === 'invalid_json';
      const value = sampleFromSchema(call.jsonSchema.schema, seededRandom(seed));
      content = broken ? `{"answer": ${JSON.stringify(value)}` : JSON.stringify(value);
    } else {
      content = directives.reply ?? simulateReply(call.messages, seed);
    }
    let outputTokens = await tokenizer.encode(content);
    let finishReason: ChatResult['finishReason'] = 'stop';
    if (call.maxTokens !== undefined && outputTokens.length > call.maxTokens) {
      outputTokens = outputTokens.slice(0, call.maxTokens);
      content = tokenizer.decode(outputTokens).replace(/\uFFFD+$/, '');
      finishReason = 'length';
    }
    const result: ChatResult = {
      model: simulatedModelName(call.model),
      content,
      finishReason,
      usage: {
        inputTokens,
        outputTokens: outputTokens.length,
      },
    };
    return { result, tokens: outputTokens };
  }

  #directives(context: CallContext): SimulatedDirectives {
    return this.#settings.allowRequestDirectives ? readDirectives(context.metadata) : {};
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
