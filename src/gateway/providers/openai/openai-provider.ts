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
  /** Another host's paths and identity for the same wire format (Azure OpenAI). */
  route?: OpenAIRoute;
}

/**
 * Where an OpenAI-format request goes and how it proves who sends it, when that is not OpenAI's
 * `/chat/completions` with a bearer key: Azure's v1 or deployments paths, its `api-key` or Entra ID
 * token, its error bodies.
 */
export interface OpenAIRoute {
  /** The request path (with any query) of an operation for the upstream's model name. */
  path(operation: 'chat/completions' | 'embeddings', model: string): string;
  /** The upstream's model name for the client's. */
  model(model: string): string;
  headers(): Promise<Record<string, string>>;
  /** A non-2xx answer as the route's vendor means it; the OpenAI reading otherwise. */
  error?(
    slot: ProviderSlot,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
  ): Error;
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
  readonly #route: OpenAIRoute;

  constructor(
    settings: Pick<SettingsOfKind<'openai'>, 'slot' | 'baseUrl' | 'apiKey' | 'timeouts'>,
    options: OpenAIProviderOptions = {},
  ) {
    const { baseUrl } = settings;
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#maxTokensField = maxTokensFieldFor(baseUrl);
    this.#http = new UpstreamHttp(settings.slot, baseUrl, settings.timeouts, options.dispatcher);
    this.#route = options.route ?? {
      path: (operation) => `/${operation}`,
      model: (model) => model,
      headers: async () => this.#keyHeader(),
    };
  }

  async chat(given: ChatCall, context: CallContext): Promise<ChatResult> {
    const call = { ...given, model: this.#route.model(given.model) };
    const response = await this.#http.send({
      path: this.#route.path('chat/completions', call.model),
      headers: await this.#headers('application/json'),
      body: toOpenAIChatRequest(call, {
        stream: false,
        maxTokensField: this.#maxTokensField,
        promptCacheKey: context.promptCacheKey,
      }),
      signal: context.signal,
    });
    if (!isSuccess(response.status)) throw this.#error(response.status, response.headers, response.text);
    return fromOpenAIChatResponse(this.slot, this.#http.parseJson(response), call.model);
  }

  async *streamChat(given: ChatCall, context: CallContext): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const call = { ...given, model: this.#route.model(given.model) };
    const opened = await this.#http.openStream(
      {
        path: this.#route.path('chat/completions', call.model),
        headers: await this.#headers('text/event-stream'),
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
    if (!isSuccess(response.status)) throw this.#error(response.status, response.headers, response.text);
    // A server that ignored `stream: true` (or reports an error as a 200 JSON body).
    const body = this.#http.parseJson(response);
    if (isRecord(body) && isRecord(body['error'])) throw errorFromStreamChunk(this.slot, body);
    yield* eventsFromCompletion(fromOpenAIChatResponse(this.slot, body, call.model));
  }

  async embed(given: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const call = { ...given, model: this.#route.model(given.model) };
    const response = await this.#http.send({
      path: this.#route.path('embeddings', call.model),
      headers: await this.#headers('application/json'),
      body: toOpenAIEmbeddingsRequest(call),
      signal: context.signal,
    });
    if (!isSuccess(response.status)) throw this.#error(response.status, response.headers, response.text);
    // Number-array vectors stay the bytes they came as (../embedding-arrays.ts); any other body as before.
    const body =
      parseWithLiftedEmbeddings(response.body, OPENAI_EMBEDDING_PLACE) ?? this.#http.parseJson(response);
    return fromOpenAIEmbeddingsResponse(this.slot, body, call);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  async #headers(accept: string): Promise<Record<string, string>> {
    return { accept, ...(await this.#route.headers()) };
  }

  #keyHeader(): Record<string, string> {
    return this.#apiKey === undefined || this.#apiKey === ''
      ? {}
      : { authorization: `Bearer ${this.#apiKey}` };
  }

  #error(status: number, headers: Record<string, string | string[] | undefined>, text: string): Error {
    return (
      this.#route.error?.(this.slot, status, headers, text) ??
      errorFromResponse(this.slot, status, headers, text)
    );
  }
}

function contentType(headers: Record<string, string | string[] | undefined>): string {
  const value = headers['content-type'];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).toLowerCase();
}
