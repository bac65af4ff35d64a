import type { Dispatcher } from 'undici';
import { type ModelMap, mappedModel } from '../../../config/cloud-settings.ts';
import type { ProviderSlot, SettingsOfKind } from '../../../config/config-types.ts';
import { PROVIDER_KIND_ROWS } from '../../../config/provider-kinds.ts';
import { CachedBearerAuth } from '../cached-bearer-auth.ts';
import { OpenAIProvider, type OpenAIRoute } from '../openai/openai-provider.ts';
import type {
  CallContext,
  ChatCall,
  ChatResult,
  ChatStreamEvent,
  EmbedCall,
  EmbedResult,
  ProviderAdapter,
} from '../provider.ts';
import { azureError } from './azure-error.ts';
import { type BearerTokenFetch, fetchEntraTokenFor } from './entra-token.ts';

export interface AzureProviderOptions {
  dispatcher?: Dispatcher;
}

/**
 * Azure OpenAI behind one slot or deployment (CONTRACT 6.4): the OpenAI adapter's translation
 * (openai/), sent to the resource's v1 API (`/openai/v1/chat/completions`, `/openai/v1/embeddings`,
 * `model` the deployment name) or, with `apiVersion`, to
 * `/openai/deployments/<deployment>/…?api-version=<apiVersion>`. The key goes as `api-key`; without
 * one, a Microsoft Entra ID token (client credentials) cached until five minutes before expiry.
 * `modelMap` turns the client's names into deployment names. Content-filter refusals are 400s
 * naming the filter (azure-error.ts).
 */
export class AzureProvider implements ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind = 'azure' as const;
  readonly capabilities = PROVIDER_KIND_ROWS.azure.capabilities;
  readonly #openai: OpenAIProvider;
  /** The Entra ID token cache, when the slot has no key. */
  readonly entra: CachedBearerAuth | undefined;
  readonly #modelMap: ModelMap;

  constructor(
    settings: SettingsOfKind<'azure'>,
    options: AzureProviderOptions & { entraFetch?: BearerTokenFetch } = {},
  ) {
    this.slot = settings.slot;
    const base = (settings.baseUrl ?? '').replace(/\/+$/, '');
    const apiVersion = settings.cloud?.apiVersion;
    const map = settings.modelMap ?? {};
    this.#modelMap = map;
    const identity = settings.cloud?.azure;
    const apiKey = settings.apiKey;
    this.entra =
      apiKey === undefined && identity !== undefined
        ? new CachedBearerAuth(settings.slot, 'Entra ID', options.entraFetch ?? fetchEntraTokenFor(identity))
        : undefined;
    const entra = this.entra;
    const route: OpenAIRoute = {
      path: (operation, model) =>
        apiVersion === undefined
          ? `/openai/v1/${operation}`
          : `/openai/deployments/${encodeURIComponent(model)}/${operation}?api-version=${encodeURIComponent(apiVersion)}`,
      model: (model) => mappedModel(map, model),
      headers: async () =>
        entra !== undefined ? entra.headers() : apiKey === undefined ? {} : { 'api-key': apiKey },
      error: azureError,
    };
    this.#openai = new OpenAIProvider(
      { slot: settings.slot, baseUrl: base, apiKey: undefined, timeouts: settings.timeouts },
      { route, ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }) },
    );
  }

  upstreamModel(model: string): string {
    return mappedModel(this.#modelMap, model);
  }

  chat(call: ChatCall, context: CallContext): Promise<ChatResult> {
    return this.#openai.chat(call, context);
  }

  streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent> {
    return this.#openai.streamChat(call, context);
  }

  embed(call: EmbedCall, context: CallContext): Promise<EmbedResult> {
    return this.#openai.embed(call, context);
  }

  close(): Promise<void> {
    return this.#openai.close();
  }
}
