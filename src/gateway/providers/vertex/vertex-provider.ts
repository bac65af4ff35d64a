import type { Dispatcher } from 'undici';
import { type ModelMap, mappedModel } from '../../../config/cloud-settings.ts';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import type { RelayWire } from '../../domain/messages.ts';
import { CachedBearerAuth } from '../cached-bearer-auth.ts';
import { fromGeminiResponse } from '../gemini/from-gemini-response.ts';
import { fromGeminiStream } from '../gemini/from-gemini-stream.ts';
import { GeminiRelay } from '../gemini/gemini-relay.ts';
import { toGeminiRequest } from '../gemini/to-gemini-request.ts';
import { UpstreamHttp } from '../http/upstream-http.ts';
import type { MessagesRelay } from '../messages-relay.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { googleTokenFetch, type TokenFetch } from './google-token-source.ts';
import { VertexCaller } from './vertex-caller.ts';
import { isVertexClaude, VertexClaude } from './vertex-claude.ts';
import { embedOnVertex } from './vertex-embeddings.ts';
import { vertexGeminiTransport } from './vertex-gemini-transport.ts';

export interface VertexProviderOptions {
  dispatcher?: Dispatcher;
  /** Replaces the slot's Google identity (tests). */
  tokens?: TokenFetch;
}

/** Vertex AI's endpoint for a location (`global` has no regional host). */
export function vertexUrl(location: string): string {
  return location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`;
}

/**
 * Google Vertex AI behind one slot or deployment (CONTRACT 6.4): Gemini models through
 * `publishers/google/models/<m>:generateContent` and `:streamGenerateContent?alt=sse` (the Gemini
 * adapter's own translation files), Claude models through `publishers/anthropic/models/<m>:
 * rawPredict` (vertex-claude.ts, also the Anthropic door's same-vendor lane), embeddings through
 * `predict`. One bearer token, from a service-account file or Application Default Credentials,
 * serves every request until it nears expiry.
 */
export class VertexProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'vertex' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.vertex.capabilities;
  readonly #http: UpstreamHttp;
  readonly #caller: VertexCaller;
  readonly #claude: VertexClaude;
  readonly #modelMap: ModelMap;
  readonly #geminiRelay: GeminiRelay;
  /** The slot's token cache (tests count its fetches). */
  readonly auth: CachedBearerAuth;

  constructor(settings: SettingsOfKind<'vertex'>, options: VertexProviderOptions = {}) {
    this.slot = settings.slot;
    const location = settings.cloud?.location ?? 'global';
    const project = settings.cloud?.project ?? '';
    this.#http = new UpstreamHttp(
      settings.slot,
      settings.baseUrl ?? vertexUrl(location),
      settings.timeouts,
      options.dispatcher,
    );
    const file = settings.cloud?.credentialsFile;
    let source: Promise<TokenFetch> | undefined;
    // The key file is read on the first request, so a missing one fails the request (a 502 naming
    // the slot), not the gateway's start.
    const lazy: TokenFetch = async () => {
      source ??= googleTokenFetch(file).catch((error: unknown) => {
        // An unreadable file is read again on the next request (it may have been mounted since).
        source = undefined;
        throw error;
      });
      return (await source)();
    };
    const tokens = options.tokens ?? lazy;
    this.auth = new CachedBearerAuth(
      settings.slot,
      file === undefined ? 'Google Application Default Credentials' : 'the service-account file',
      tokens,
    );
    this.#caller = new VertexCaller(settings.slot, this.#http, this.auth, project, location);
    this.#claude = new VertexClaude(settings.slot, this.#caller, settings.defaultMaxTokens);
    this.#modelMap = settings.modelMap ?? {};
    this.#geminiRelay = new GeminiRelay(vertexGeminiTransport(this.#caller, (name) => this.#model(name)));
  }

  upstreamModel(model: string): string {
    return this.#model(model);
  }

  /**
   * The same-vendor lane of the model's own wire format: a Claude model's Messages (the Anthropic
   * door's, by rawPredict), a Gemini model's GenerateContentRequest (the Gemini door's, by
   * generateContent); a door of the other format reads it across vendors.
   */
  relayFor(model: string, wire: RelayWire): MessagesRelay | undefined {
    const claude = isVertexClaude(this.#model(model));
    if (wire === 'messages') return claude ? this.#mappedRelay : undefined;
    return claude ? undefined : this.#geminiRelay;
  }

  /** Google's count for a Gemini model (the Gemini door's countTokens); a Claude model's is the gateway's. */
  async countGeminiTokens(model: string, body: Buffer, context: CallContext): Promise<string | undefined> {
    if (isVertexClaude(this.#model(model))) return undefined;
    return this.#geminiRelay.countTokens(model, body, context);
  }

  readonly #mappedRelay: MessagesRelay = {
    message: (call, context) => this.#claude.message({ ...call, model: this.#model(call.model) }, context),
    stream: (call, context) => this.#claude.stream({ ...call, model: this.#model(call.model) }, context),
  };

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const model = this.#model(call.model);
    if (isVertexClaude(model)) return this.#claude.chat(call, model, context);
    const response = await this.#caller.send(
      this.#geminiPath(model, 'generateContent'),
      { json: toGeminiRequest(call) },
      context,
    );
    return fromGeminiResponse(this.#http.parseJson(response), model, this.slot, context.requestId);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const model = this.#model(call.model);
    if (isVertexClaude(model)) {
      yield* this.#claude.streamChat(call, model, context);
      return;
    }
    const path = `${this.#geminiPath(model, 'streamGenerateContent')}?alt=sse`;
    const events = await this.#caller.openEvents(path, { json: toGeminiRequest(call) }, context);
    yield* fromGeminiStream(events, model, this.slot, context.requestId);
  }

  embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    return embedOnVertex(this.slot, this.#caller, call, this.#model(call.model), context);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #geminiPath(model: string, method: string): string {
    return `${this.#caller.publishers}/google/models/${encodeURIComponent(model)}:${method}`;
  }

  #model(model: string): string {
    return mappedModel(this.#modelMap, model);
  }
}
