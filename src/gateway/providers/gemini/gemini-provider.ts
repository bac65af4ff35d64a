import type { EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { parseWithLiftedEmbeddings } from '../embedding-arrays.ts';
import { type BufferedResponse, isSuccess, UpstreamHttp } from '../http/upstream-http.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbeddingVector,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { fromGeminiResponse } from './from-gemini-response.ts';
import { fromGeminiStream } from './from-gemini-stream.ts';
import {
  embedBatches,
  fromBatchEmbedResponse,
  GEMINI_EMBEDDING_PLACE,
  toBatchEmbedRequest,
} from './gemini-embeddings.ts';
import { geminiHttpError } from './gemini-error.ts';
import { geminiMethodPath, geminiModelId } from './gemini-model.ts';
import { GeminiRelay, geminiApiTransport } from './gemini-relay.ts';
import { toGeminiRequest } from './to-gemini-request.ts';

/**
 * The Gemini API (Generative Language API, v1beta) behind one slot. The base URL is the origin
 * (`https://generativelanguage.googleapis.com`); the key travels in the `x-goog-api-key` header,
 * never in the URL, so it cannot end up in access logs or error messages.
 */
export class GeminiProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'gemini' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.gemini.capabilities;
  readonly #http: UpstreamHttp;
  readonly #apiKey: string | undefined;
  /** The Gemini door's same-vendor lane (gemini-relay.ts): the door's description names the gemini kind. */
  readonly relay: GeminiRelay;

  constructor(settings: SettingsOfKind<'gemini'>, options: { dispatcher?: Dispatcher } = {}) {
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#http = new UpstreamHttp(settings.slot, settings.baseUrl, settings.timeouts, options.dispatcher);
    this.relay = new GeminiRelay(
      geminiApiTransport({ slot: settings.slot, http: this.#http, apiKey: settings.apiKey }),
    );
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const response = await this.#send(
      geminiMethodPath(call.model, 'generateContent'),
      toGeminiRequest(call),
      context,
    );
    return fromGeminiResponse(this.#http.parseJson(response), call.model, this.slot, context.requestId);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const path = `${geminiMethodPath(call.model, 'streamGenerateContent')}?alt=sse`;
    const events = await this.#openStream(path, toGeminiRequest(call), context);
    yield* fromGeminiStream(events, call.model, this.slot, context.requestId);
  }

  /**
   * One batchEmbedContents call per 100 inputs, one after another (kinder to per-minute quotas
   * than a burst), vectors concatenated in input order.
   */
  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const path = geminiMethodPath(call.model, 'batchEmbedContents');
    const vectors: EmbeddingVector[] = [];
    for (const batch of embedBatches(call.inputs)) {
      const response = await this.#send(
        path,
        toBatchEmbedRequest(call.model, batch, call.dimensions),
        context,
      );
      // Each `values` array stays the bytes it came as (../embedding-arrays.ts); any other body as before.
      const body =
        parseWithLiftedEmbeddings(response.body, GEMINI_EMBEDDING_PLACE) ?? this.#http.parseJson(response);
      vectors.push(...fromBatchEmbedResponse(body, batch.length, this.slot));
    }
    return { model: geminiModelId(call.model), vectors, usage: undefined };
  }

  countGeminiTokens(model: string, body: Buffer, context: CallContext): Promise<string> {
    return this.relay.countTokens(model, body, context);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  /** Sends a request and reads the whole answer; a non-2xx one becomes a ProviderError. */
  async #send(path: string, body: unknown, context: CallContext): Promise<BufferedResponse> {
    const response = await this.#http.send({ path, headers: this.#headers(), body, signal: context.signal });
    if (isSuccess(response.status)) return response;
    throw geminiHttpError(this.slot, response.status, response.headers, response.text);
  }

  #headers(): Record<string, string> {
    return this.#apiKey === undefined ? {} : { 'x-goog-api-key': this.#apiKey };
  }

  /** Opens a stream; a non-2xx answer becomes a ProviderError read from Google's error body. */
  async #openStream(
    path: string,
    body: unknown,
    context: CallContext,
  ): Promise<AsyncIterable<EventSourceMessage>> {
    const opened = await this.#http.openStream({
      path,
      headers: this.#headers(),
      body,
      signal: context.signal,
    });
    if (opened.kind === 'events') return opened.events;
    const { response } = opened;
    throw geminiHttpError(this.slot, response.status, response.headers, response.text);
  }
}
