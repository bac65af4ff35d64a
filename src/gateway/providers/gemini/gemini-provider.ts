import type { Dispatcher } from 'undici';
import type { ProviderSettings, ProviderSlot } from '../../../config/config-types.ts';
import { readLimitedText, UpstreamHttp, type UpstreamResponse } from '../http/upstream-http.ts';
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
import { fromGeminiResponse } from './from-gemini-response.ts';
import { fromGeminiStream } from './from-gemini-stream.ts';
import { embedBatches, fromBatchEmbedResponse, toBatchEmbedRequest } from './gemini-embeddings.ts';
import { geminiHttpError } from './gemini-error.ts';
import { geminiMethodPath, geminiModelId } from './gemini-model.ts';
import { toGeminiRequest } from './to-gemini-request.ts';

const CAPABILITIES: ProviderCapabilities = {
  chat: true,
  stream: true,
  embed: true,
  nativeJsonSchema: true,
  maxTemperature: 2,
};

/**
 * The Gemini API (Generative Language API, v1beta) behind one slot. The base URL is the origin
 * (`https://generativelanguage.googleapis.com`); the key travels in the `x-goog-api-key` header,
 * never in the URL, so it cannot end up in access logs or error messages.
 */
export class GeminiProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'gemini' as const;
  readonly capabilities = CAPABILITIES;
  readonly #http: UpstreamHttp;
  readonly #apiKey: string | undefined;

  constructor(settings: ProviderSettings, options: { dispatcher?: Dispatcher } = {}) {
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#http = new UpstreamHttp(settings.slot, settings.baseUrl!, settings.timeouts, options.dispatcher);
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const response = await this.#post(
      geminiMethodPath(call.model, 'generateContent'),
      toGeminiRequest(call),
      context,
    );
    const body = await this.#http.readJson(response, context.signal);
    return fromGeminiResponse(body, call.model, this.slot);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const path = `${geminiMethodPath(call.model, 'streamGenerateContent')}?alt=sse`;
    const response = await this.#post(path, toGeminiRequest(call), context);
    yield* fromGeminiStream(this.#http.readEvents(response, context.signal), call.model, this.slot);
  }

  /**
   * One batchEmbedContents call per 100 inputs, one after another (kinder to per-minute quotas
   * than a burst), vectors concatenated in input order.
   */
  async embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    const path = geminiMethodPath(call.model, 'batchEmbedContents');
    const vectors: number[][] = [];
    for (const batch of embedBatches(call.inputs)) {
      const response = await this.#post(path, toBatchEmbedRequest(call.model, batch), context);
      const body = await this.#http.readJson(response, context.signal);
      vectors.push(...fromBatchEmbedResponse(body, batch.length, this.slot));
    }
    return { model: geminiModelId(call.model), vectors, usage: undefined };
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  /** Sends a request; a non-2xx answer becomes a ProviderError read from Google's error body. */
  async #post(path: string, body: unknown, context: CallContext): Promise<UpstreamResponse> {
    const response = await this.#http.request({
      path,
      headers: this.#apiKey === undefined ? {} : { 'x-goog-api-key': this.#apiKey },
      body,
      signal: context.signal,
    });
    if (response.status >= 200 && response.status < 300) return response;
    let text = '';
    try {
      text = await readLimitedText(response.body);
    } catch (error) {
      // An unreadable error body still has a status worth reporting, unless the caller left.
      if (context.signal.aborted) throw this.#http.transportError(error, context.signal);
    }
    throw geminiHttpError(this.slot, response.status, response.headers, text);
  }
}
