import {
  type BalanceStrategy,
  type Config,
  PROVIDER_SLOTS,
  type ProviderKind,
  type ProviderSettings,
  type ProviderSlot,
  type SettingsOfKind,
  type SlotSettings,
} from '../../config/config-types.ts';
import { type CircuitKey, circuitKey } from '../../storage/provider-health.ts';
import type { SlotProfile } from '../domain/routing.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import { AnthropicProvider } from './anthropic/anthropic-provider.ts';
import { AzureProvider } from './azure/azure-provider.ts';
import { BedrockProvider } from './bedrock/bedrock-provider.ts';
import { GeminiProvider } from './gemini/gemini-provider.ts';
import { withModelMap } from './model-mapped-adapter.ts';
import { OpenAIProvider } from './openai/openai-provider.ts';
import type { ProviderAdapter } from './provider.ts';
import { SimulatedProvider } from './simulated/simulated-provider.ts';
import { VertexProvider } from './vertex/vertex-provider.ts';

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
  bedrock: (settings) => new BedrockProvider(settings),
  azure: (settings) => new AzureProvider(settings),
  vertex: (settings) => new VertexProvider(settings),
};

/** One upstream of a slot, with its own adapter (and so its own connection pool and key). */
export interface Deployment {
  readonly slot: ProviderSlot;
  /** Null for a slot without deployments: its own upstream, unnamed in the ledger and metrics. */
  readonly name: string | null;
  /** Its circuit's key; also what its shared counts are kept under. */
  readonly key: CircuitKey;
  readonly weight: number;
  /** The models it serves; undefined: every model of its slot. */
  readonly models: readonly string[] | undefined;
  readonly adapter: ProviderAdapter;
}

/** A slot's deployments and how it picks among them. */
export interface DeploymentPool {
  readonly slot: ProviderSlot;
  readonly strategy: BalanceStrategy;
  /** At least one, in configured order. */
  readonly deployments: readonly Deployment[];
  /** Longest a call may last (the slot's total time limit): how long an in-flight lease lives. */
  readonly callLimitMs: number;
}

/** The three slots and the deployments bound to them, built once from the configuration. */
export class ProviderRegistry {
  readonly #pools: Record<ProviderSlot, DeploymentPool>;
  readonly #settings: Record<ProviderSlot, ProviderSettings>;
  readonly profiles: Record<ProviderSlot, SlotProfile>;

  constructor(pools: Record<ProviderSlot, DeploymentPool>, settings: Record<ProviderSlot, ProviderSettings>) {
    this.#pools = pools;
    this.#settings = settings;
    const adapters = Object.fromEntries(
      PROVIDER_SLOTS.map((slot) => [slot, (pools[slot].deployments[0] as Deployment).adapter]),
    ) as Record<ProviderSlot, ProviderAdapter>;
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

  /** The slot's first deployment's adapter: its kind and capabilities are every deployment's. */
  adapter(slot: ProviderSlot): ProviderAdapter {
    return (this.#pools[slot].deployments[0] as Deployment).adapter;
  }

  pool(slot: ProviderSlot): DeploymentPool {
    return this.#pools[slot];
  }

  settings(slot: ProviderSlot): ProviderSettings {
    return this.#settings[slot];
  }

  async close(): Promise<void> {
    const deployments = PROVIDER_SLOTS.flatMap((slot) => this.#pools[slot].deployments);
    await Promise.all(deployments.map((deployment) => deployment.adapter.close?.()));
  }
}

export function buildRegistry(
  config: Config,
  shared: AdapterShared,
  factories = ADAPTER_FACTORIES,
): ProviderRegistry {
  const pools = Object.fromEntries(
    PROVIDER_SLOTS.map((slot) => [slot, buildPool(config.providers[slot], shared, factories)]),
  ) as Record<ProviderSlot, DeploymentPool>;
  return new ProviderRegistry(pools, config.providers);
}

/**
 * A slot's deployments, each an adapter of its own kind (the slot's unless it names one, CONTRACT
 * 6.4) built from the slot's settings with the deployment's base URL, key, cloud settings and model
 * map; a slot without deployments is its own one deployment.
 */
function buildPool(
  settings: SlotSettings,
  shared: AdapterShared,
  factories: typeof ADAPTER_FACTORIES,
): DeploymentPool {
  const { slot } = settings;
  const deployments: Deployment[] =
    settings.deployments.length === 0
      ? [
          {
            slot,
            name: null,
            key: circuitKey(slot, null),
            weight: 1,
            models: undefined,
            adapter: buildAdapter(settings, shared, factories),
          },
        ]
      : settings.deployments.map((deployment) => ({
          slot,
          name: deployment.name,
          key: circuitKey(slot, deployment.name),
          weight: deployment.weight,
          models: deployment.models,
          adapter: buildAdapter(
            {
              ...settings,
              kind: deployment.kind,
              baseUrl: deployment.baseUrl,
              apiKey: deployment.apiKey,
              cloud: deployment.cloud,
              modelMap: deployment.modelMap,
            } as ProviderSettings,
            shared,
            factories,
          ),
        }));
  return { slot, strategy: settings.strategy, deployments, callLimitMs: settings.timeouts.totalMs };
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
  return withModelMap(factory(settings, shared), settings.modelMap);
}
