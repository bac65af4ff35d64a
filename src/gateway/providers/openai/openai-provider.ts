import type { Dispatcher } from 'undici';
import type { ProviderSettings, ProviderSlot } from '../../../config/config-types.ts';
import { readLimitedText, UpstreamHttp, type UpstreamResponse } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
  ProviderCapabilities,
} from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { fromOpenAIChatResponse } from './from-openai-response.ts';
import { eventsFromCompletion, fromOpenAIStream } from './from-openai-stream.ts';
import { fromOpenAIEmbeddingsResponse, toOpenAIEmbeddingsRequest } from './openai-embeddings.ts';
import { errorFromResponse, errorFromStreamChunk } from './openai-error.ts';
import { type MaxTokensField, maxTokensFieldFor, toOpenAIChatRequest } from './to-openai-request.ts';

const CAPABILITIES: ProviderCapabilities = {
  chat: true,
  stream: true,
  embed: true,
  nativeJsonSchema: true,
  maxTemperature: 2,
};

/** Where the config loader points an `openai` slot when no BASE_URL is set; repeated here only as a guard. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions {
  /** Replaces the slot's own connection pool (tests use undici's MockAgent). */
  dispatcher?: Dispatcher;
}

/**
 * OpenAI Chat Completions and Embeddings, and any server that speaks them (vLLM, Ollama,
 * OpenRouter, Groq, LM Studio) at a base URL that includes `/v1`. The key, when there is one, is
 * sent as a bearer token and nowhere else; keyless local servers get no Authorization header.
 */
export class OpenAIProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'openai' as const;
  readonly capabilities = CAPABILITIES;
  readonly #http: UpstreamHttp;
  readonly #apiKey: string | undefined;
  readonly #maxTokensField: MaxTokensField;

  constructor(settings: ProviderSettings, options: OpenAIProviderOptions = {}) {
    const baseUrl = settings.baseUrl ?? OPENAI_BASE_URL;
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#maxTokensField = maxTokensFieldFor(baseUrl);
    this.#http = new UpstreamHttp(settings.slot, baseUrl, settings.timeouts, options.dispatcher);
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const response = await this.#http.send({
      path: '/chat/completions',
      headers: this.#headers('application/json'),
      body: toOpenAIChatRequest(call, { stream: false, maxTokensField: this.#maxTokensField }),
      signal: context.signal,
    });
    if (!isSuccess(response))
      throw errorFromResponse(this.slot, response.status, response.headers, response.text);
    return fromOpenAIChatResponse(this.slot, this.#http.parseJson(response), call.model);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const response = await this.#http.request({
      path: '/chat/completions',
      headers: this.#headers('text/event-stream'),
      body: toOpenAIChatRequest(call, { stream: true, maxTokensField: this.#maxTokensField }),
      signal: context.signal,
    });
    if (!isSuccess(response)) throw await this.#httpError(response, context.signal);
    if (contentType(response).includes('application/json')) {
      // A server that ignored `stream: true` (or reports an error as a 200 JSON body).
      const body = await this.#http.readJson(response, context.signal);
      if (isRecord(body) && isRecord(body['error'])) throw errorFromStreamChunk(this.slot, body);
      yield* eventsFromCompletion(fromOpenAIChatResponse(this.slot, body, call.model));
      return;
    }
    yield* fromOpenAIStream(this.slot, this.#http.readEvents(response, context.signal), call.model);
  }

  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const response = await this.#http.send({
      path: '/embeddings',
      headers: this.#headers('application/json'),
      body: toOpenAIEmbeddingsRequest(call),
      signal: context.signal,
    });
    if (!isSuccess(response))
      throw errorFromResponse(this.slot, response.status, response.headers, response.text);
    return fromOpenAIEmbeddingsResponse(this.slot, this.#http.parseJson(response), call);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #headers(accept: string): Record<string, string> {
    const headers: Record<string, string> = { accept };
    if (this.#apiKey !== undefined && this.#apiKey !== '')
      headers['authorization'] = `Bearer ${this.#apiKey}`;
    return headers;
  }

  /** Reads at most 64 KiB of the error body, only to find its `type` and `code`. */
  async #httpError(response: UpstreamResponse, signal: AbortSignal): Promise<ProviderError> {
    let text = '';
    try {
      text = await readLimitedText(response.body);
    } catch (error) {
      // The caller left while the error body was read: that is the caller's abort, not the status.
      if (signal.aborted) return this.#http.transportError(error, signal);
    }
    return errorFromResponse(this.slot, response.status, response.headers, text);
  }
}

function isSuccess(response: { status: number }): boolean {
  return response.status >= 200 && response.status < 300;
}

function contentType(response: UpstreamResponse): string {
  const value = response.headers['content-type'];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).toLowerCase();
}
