import {
  type Config,
  PROVIDER_SLOTS,
  type ProviderKind,
  type ProviderSettings,
  type ProviderSlot,
  type SettingsOfKind,
} from '../../config/config-types.ts';
import type { SlotProfile } from '../domain/routing.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import { AnthropicProvider } from './anthropic/anthropic-provider.ts';
import { GeminiProvider } from './gemini/gemini-provider.ts';
import { OpenAIProvider } from './openai/openai-provider.ts';
import type { ProviderAdapter } from './provider.ts';
import { SimulatedProvider } from './simulated/simulated-provider.ts';

/** What the application shares with the adapters it builds. */
export interface AdapterShared {
  /** The simulated provider's token counts. */
  tokenizer: Tokenizer;
}

export type AdapterFactory<K extends ProviderKind = ProviderKind> = (
  settings: SettingsOfKind<K>,
  shared: AdapterShared,
) => ProviderAdapter;

/**
 * The one line per kind that is not in its row (src/config/provider-kinds.ts): the adapter, which
 * config cannot import. Every kind must have one, or this does not compile.
 */
export const ADAPTER_FACTORIES: { readonly [K in ProviderKind]: AdapterFactory<K> } = {
  simulated: (settings, shared) => new SimulatedProvider(settings, shared.tokenizer),
  anthropic: (settings) => new AnthropicProvider(settings),
  gemini: (settings) => new GeminiProvider(settings),
  openai: (settings) => new OpenAIProvider(settings),
};

/** The three slots and the adapters bound to them, built once from the configuration. */
export class ProviderRegistry {
  readonly #adapters: Record<ProviderSlot, ProviderAdapter>;
  readonly #settings: Record<ProviderSlot, ProviderSettings>;
  readonly profiles: Record<ProviderSlot, SlotProfile>;

  constructor(
    adapters: Record<ProviderSlot, ProviderAdapter>,
    settings: Record<ProviderSlot, ProviderSettings>,
  ) {
    this.#adapters = adapters;
    this.#settings = settings;
    this.profiles = Object.fromEntries(
      PROVIDER_SLOTS.map((slot) => [
        slot,
        {
          kind: settings[slot].kind,
          chatModel: settings[slot].chatModel,
          embedModel: adapters[slot].capabilities.embed ? settings[slot].embedModel : undefined,
          models: settings[slot].models,
          canEmbed: adapters[slot].capabilities.embed,
          canCallTools: adapters[slot].capabilities.tools,
        },
      ]),
    ) as unknown as Record<ProviderSlot, SlotProfile>;
  }

  adapter(slot: ProviderSlot): ProviderAdapter {
    return this.#adapters[slot];
  }

  settings(slot: ProviderSlot): ProviderSettings {
    return this.#settings[slot];
  }

  async close(): Promise<void> {
    await Promise.all(PROVIDER_SLOTS.map((slot) => this.#adapters[slot].close?.()));
  }
}

export function buildRegistry(
  config: Config,
  shared: AdapterShared,
  factories = ADAPTER_FACTORIES,
): ProviderRegistry {
  const adapters = Object.fromEntries(
    PROVIDER_SLOTS.map((slot) => {
      const settings = config.providers[slot];
      return [slot, buildAdapter(settings, shared, factories)];
    }),
  ) as Record<ProviderSlot, ProviderAdapter>;
  return new ProviderRegistry(adapters, config.providers);
}

function buildAdapter(
  settings: ProviderSettings,
  shared: AdapterShared,
  factories: typeof ADAPTER_FACTORIES,
): ProviderAdapter {
  // TypeScript cannot pair a member of the union with the factory of the same kind; `kind` does.
  const factory = factories[settings.kind] as (
    settings: ProviderSettings,
    shared: AdapterShared,
  ) => ProviderAdapter;
  return factory(settings, shared);
}
