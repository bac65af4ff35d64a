import type { Dispatcher } from 'undici';
import { type ModelMap, mappedModel } from '../../../config/cloud-settings.ts';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import type { RelayWire } from '../../domain/messages.ts';
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
import { type AwsCredentialSource, BearerAuth, SigV4Auth } from './bedrock-auth.ts';
import { BedrockCaller } from './bedrock-caller.ts';
import { embedOnBedrock } from './bedrock-embeddings.ts';
import { BedrockRelay, modelPath } from './bedrock-relay.ts';
import { fromConverseResponse } from './from-converse-response.ts';
import { fromConverseStream } from './from-converse-stream.ts';
import { isClaude, toConverseRequest } from './to-converse-request.ts';

export interface BedrockProviderOptions {
  dispatcher?: Dispatcher;
  /** Replaces the AWS SDK's default chain (tests). */
  credentials?: AwsCredentialSource;
}

/** Bedrock Runtime's endpoint in a region. */
export function bedrockRuntimeUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/**
 * AWS Bedrock Runtime behind one slot or deployment (CONTRACT 6.4): chat through Converse and
 * ConverseStream for every model, embeddings through InvokeModel, and for Claude models the
 * Anthropic door's same-vendor lane through InvokeModel with the client's Messages body. Every
 * request is signed with SigV4 from the AWS SDK's default credential chain, or carries the
 * Bedrock API key as a bearer token. `modelMap` turns the client's names into Bedrock ids.
 */
export class BedrockProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'bedrock' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.bedrock.capabilities;
  readonly #http: UpstreamHttp;
  readonly #caller: BedrockCaller;
  readonly #modelMap: ModelMap;
  readonly #defaultMaxTokens: number;
  readonly #relay: BedrockRelay;

  constructor(settings: SettingsOfKind<'bedrock'>, options: BedrockProviderOptions = {}) {
    this.slot = settings.slot;
    const region = settings.cloud?.region ?? 'us-east-1';
    const baseUrl = settings.baseUrl ?? bedrockRuntimeUrl(region);
    this.#http = new UpstreamHttp(settings.slot, baseUrl, settings.timeouts, options.dispatcher);
    const auth =
      settings.apiKey === undefined
        ? new SigV4Auth(settings.slot, region, options.credentials)
        : new BearerAuth(settings.apiKey);
    this.#caller = new BedrockCaller(settings.slot, this.#http, auth, baseUrl);
    this.#modelMap = settings.modelMap ?? {};
    this.#defaultMaxTokens = settings.defaultMaxTokens;
    this.#relay = new BedrockRelay(settings.slot, this.#caller);
  }

  /**
   * The same-vendor lane, for Claude models only: any other model's Messages request is read
   * across vendors and goes through Converse.
   */
  upstreamModel(model: string): string {
    return this.#model(model);
  }

  relayFor(model: string, wire: RelayWire): MessagesRelay | undefined {
    return wire === 'messages' && isClaude(this.#model(model)) ? this.#mappedRelay : undefined;
  }

  /** The relay with the client's model name mapped to Bedrock's id. */
  readonly #mappedRelay: MessagesRelay = {
    message: (call, context) => this.#relay.message({ ...call, model: this.#model(call.model) }, context),
    stream: (call, context) => this.#relay.stream({ ...call, model: this.#model(call.model) }, context),
  };

  async chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    const model = this.#model(call.model);
    const { body, jsonTool } = toConverseRequest(this.slot, call, model, this.#defaultMaxTokens);
    const response = await this.#caller.send(`${modelPath(model)}/converse`, json(body), context);
    return fromConverseResponse(this.slot, this.#http.parseJson(response), model, jsonTool);
  }

  async *streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const model = this.#model(call.model);
    const { body, jsonTool } = toConverseRequest(this.slot, call, model, this.#defaultMaxTokens);
    const frames = await this.#caller.openFrames(`${modelPath(model)}/converse-stream`, json(body), context);
    yield* fromConverseStream(this.slot, frames, model, jsonTool);
  }

  embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    return embedOnBedrock(this.slot, this.#caller, call, this.#model(call.model), context);
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #model(model: string): string {
    return mappedModel(this.#modelMap, model);
  }
}

function json(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body));
}
