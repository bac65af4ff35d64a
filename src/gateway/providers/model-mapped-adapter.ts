import { type ModelMap, mappedModel } from '../../config/cloud-settings.ts';
import type { RelayWire } from '../domain/messages.ts';
import type { MessagesRelay, MessagesRelayCall } from './messages-relay.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
} from './provider.ts';

/**
 * `modelMap` (CONTRACT 6.4: "on any slot or deployment") for the kinds whose adapters do not map
 * names themselves (openai, anthropic, gemini, simulated): each call goes upstream with the map's
 * id instead of the client's name, the same-vendor lanes included, and the adapter says its mapping
 * (`upstreamModel`) so the ledger keeps both names. A kind that maps itself (the clouds) and a
 * slot without a map keep their adapter as it is.
 */
export function withModelMap(adapter: ProviderAdapter, map: ModelMap | undefined): ProviderAdapter {
  if (map === undefined || Object.keys(map).length === 0 || adapter.upstreamModel !== undefined)
    return adapter;
  return new ModelMappedAdapter(adapter, map);
}

class ModelMappedAdapter implements ProviderAdapter {
  readonly slot: ProviderAdapter['slot'];
  readonly kind: ProviderAdapter['kind'];
  readonly capabilities: ProviderAdapter['capabilities'];
  readonly relay?: MessagesRelay;
  readonly relayFor?: (model: string, wire: RelayWire) => MessagesRelay | undefined;
  readonly countGeminiTokens?: NonNullable<ProviderAdapter['countGeminiTokens']>;
  readonly #inner: ProviderAdapter;
  readonly #map: ModelMap;

  constructor(inner: ProviderAdapter, map: ModelMap) {
    this.#inner = inner;
    this.#map = map;
    this.slot = inner.slot;
    this.kind = inner.kind;
    this.capabilities = inner.capabilities;
    // Only the members the kind has: messagesRelayOf reads `relayFor`'s presence as the kind's choice.
    if (inner.relay !== undefined) this.relay = this.#mapped(inner.relay);
    const relayFor = inner.relayFor?.bind(inner);
    if (relayFor !== undefined)
      this.relayFor = (model, wire) => {
        const relay = relayFor(this.upstreamModel(model), wire);
        return relay === undefined ? undefined : this.#mapped(relay);
      };
    const count = inner.countGeminiTokens?.bind(inner);
    if (count !== undefined)
      this.countGeminiTokens = (model, body, context) => count(this.upstreamModel(model), body, context);
  }

  upstreamModel(model: string): string {
    return mappedModel(this.#map, model);
  }

  chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    return this.#inner.chat({ ...call, model: this.upstreamModel(call.model) }, context);
  }

  streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    return this.#inner.streamChat({ ...call, model: this.upstreamModel(call.model) }, context);
  }

  embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    return this.#inner.embed({ ...call, model: this.upstreamModel(call.model) }, context);
  }

  async close(): Promise<void> {
    await this.#inner.close?.();
  }

  #mapped(relay: MessagesRelay): MessagesRelay {
    const call = (given: MessagesRelayCall): MessagesRelayCall => ({
      ...given,
      model: this.upstreamModel(given.model),
    });
    return {
      message: (given, context) => relay.message(call(given), context),
      stream: (given, context) => relay.stream(call(given), context),
    };
  }
}
