import type { Dispatcher } from 'undici';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { parseWithLiftedEmbeddings } from '../embedding-arrays.ts';
import { isSuccess, UpstreamHttp } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { fromOpenAIChatResponse } from './from-openai-response.ts';
import { eventsFromCompletion, fromOpenAIStream } from './from-openai-stream.ts';
import {
  fromOpenAIEmbeddingsResponse,
  OPENAI_EMBEDDING_PLACE,
  toOpenAIEmbeddingsRequest,
} from './openai-embeddings.ts';
import { errorFromResponse, errorFromStreamChunk } from './openai-error.ts';
import { type MaxTokensField, maxTokensFieldFor, toOpenAIChatRequest } from './to-openai-request.ts';

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
  readonly capabilities = PROVIDER_KIND_ROWS.openai.capabilities;
  readonly #http: UpstreamHttp;
  readonly #apiKey: string | undefined;
  readonly #maxTokensField: MaxTokensField;

  constructor(settings: SettingsOfKind<'openai'>, options: OpenAIProviderOptions = {}) {
    const { baseUrl } = settings;
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#maxTokensField = maxTokensFieldFor(baseUrl);
    this.#http = new UpstreamHttp(settings.slot, baseUrl, settings.timeouts, options.dispatcher);
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const response = await this.#http.send({
      path: '/chat/completions',
      headers: this.#headers('application/json'),
      body: toOpenAIChatRequest(call, {
        stream: false,
        maxTokensField: this.#maxTokensField,
        promptCacheKey: context.promptCacheKey,
      }),
      signal: context.signal,
    });
    if (!isSuccess(response.status))
      throw errorFromResponse(this.slot, response.status, response.headers, response.text);
    return fromOpenAIChatResponse(this.slot, this.#http.parseJson(response), call.model);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const opened = await this.#http.openStream(
      {
        path: '/chat/completions',
        headers: this.#headers('text/event-stream'),
        body: toOpenAIChatRequest(call, {
          stream: true,
          maxTokensField: this.#maxTokensField,
          promptCacheKey: context.promptCacheKey,
        }),
        signal: context.signal,
      },
      (status, headers) => !isSuccess(status) || contentType(headers).includes('application/json'),
    );
    if (opened.kind === 'events') {
      yield* fromOpenAIStream(this.slot, opened.events, call.model);
      return;
    }
    const { response } = opened;
    if (!isSuccess(response.status))
      throw errorFromResponse(this.slot, response.status, response.headers, response.text);
    // A server that ignored `stream: true` (or reports an error as a 200 JSON body).
    const body = this.#http.parseJson(response);
    if (isRecord(body) && isRecord(body['error'])) throw errorFromStreamChunk(this.slot, body);
    yield* eventsFromCompletion(fromOpenAIChatResponse(this.slot, body, call.model));
  }

  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const response = await this.#http.send({
      path: '/embeddings',
      headers: this.#headers('application/json'),
      body: toOpenAIEmbeddingsRequest(call),
      signal: context.signal,
    });
    if (!isSuccess(response.status))
      throw errorFromResponse(this.slot, response.status, response.headers, response.text);
    // Number-array vectors stay the bytes they came as (../embedding-arrays.ts); any other body as before.
    const body =
      parseWithLiftedEmbeddings(response.body, OPENAI_EMBEDDING_PLACE) ?? this.#http.parseJson(response);
    return fromOpenAIEmbeddingsResponse(this.slot, body, call);
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
}

function contentType(headers: Record<string, string | string[] | undefined>): string {
  const value = headers['content-type'];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).toLowerCase();
}
