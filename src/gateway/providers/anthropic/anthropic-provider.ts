import type { EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { isSuccess, UpstreamHttp } from '../http/upstream-http.ts';
import type { MessagesRelay } from '../messages-relay.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { mapAnthropicHttpError } from './anthropic-error.ts';
import { AnthropicRelay } from './anthropic-relay.ts';
import { fromAnthropicResponse } from './from-anthropic-response.ts';
import { fromAnthropicStream } from './from-anthropic-stream.ts';
import { type AnthropicRequestBody, toAnthropicRequest } from './to-anthropic-request.ts';

/** The vendor's origin, used when the slot names none (the Messages path is appended to it). */
export const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages';
/** The API version every Messages request names; the wire formats here are those of this version. */
export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicProviderOptions {
  /** Replaces the slot's connection pool (tests use a mock agent or a local server's pool). */
  dispatcher?: Dispatcher;
}

/** The Anthropic Messages API (POST /v1/messages), plain and streamed. */
export class AnthropicProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'anthropic' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.anthropic.capabilities;
  readonly #http: UpstreamHttp;
  readonly #apiKey: string | undefined;
  readonly #defaultMaxTokens: number;
  /** The Anthropic door's same-vendor lane: the client's body as it wrote it (CONTRACT 5.2). */
  readonly relay: MessagesRelay;

  constructor(settings: SettingsOfKind<'anthropic'>, options: AnthropicProviderOptions = {}) {
    this.slot = settings.slot;
    this.#apiKey = settings.apiKey;
    this.#defaultMaxTokens = settings.defaultMaxTokens;
    this.#http = new UpstreamHttp(
      settings.slot,
      settings.baseUrl ?? ANTHROPIC_ORIGIN,
      settings.timeouts,
      options.dispatcher,
    );
    this.relay = new AnthropicRelay({
      slot: settings.slot,
      http: this.#http,
      apiKey: settings.apiKey,
      path: ANTHROPIC_MESSAGES_PATH,
      defaultVersion: ANTHROPIC_VERSION,
    });
  }

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const { body, jsonTool } = toAnthropicRequest(call, {
      defaultMaxTokens: this.#defaultMaxTokens,
      stream: false,
    });
    const response = await this.#http.send({
      path: ANTHROPIC_MESSAGES_PATH,
      headers: this.#headers(false),
      body,
      signal: context.signal,
    });
    if (!isSuccess(response.status))
      throw mapAnthropicHttpError(this.slot, response.status, response.headers, response.text);
    const json = this.#http.parseJson(response);
    return fromAnthropicResponse(json, { slot: this.slot, requestedModel: call.model, jsonTool });
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const { body, jsonTool } = toAnthropicRequest(call, {
      defaultMaxTokens: this.#defaultMaxTokens,
      stream: true,
    });
    const events = await this.#openStream(body, context.signal);
    yield* fromAnthropicStream(events, {
      slot: this.slot,
      requestedModel: call.model,
      jsonTool,
    });
  }

  async embed(): Promise<EmbedResult> {
    throw new ProviderError({
      slot: this.slot,
      failure: 'http',
      retryable: false,
      detail: 'Anthropic has no embeddings API',
    });
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #headers(stream: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'anthropic-version': ANTHROPIC_VERSION,
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (this.#apiKey !== undefined) headers['x-api-key'] = this.#apiKey;
    return headers;
  }

  /** Opens a stream; a non-2xx answer becomes a ProviderError built from its error type only. */
  async #openStream(
    body: AnthropicRequestBody,
    signal: AbortSignal,
  ): Promise<AsyncIterable<EventSourceMessage>> {
    const headers = this.#headers(true);
    const opened = await this.#http.openStream({ path: ANTHROPIC_MESSAGES_PATH, headers, body, signal });
    if (opened.kind === 'events') return opened.events;
    const { response } = opened;
    throw mapAnthropicHttpError(this.slot, response.status, response.headers, response.text);
  }
}
