import type { TObject } from 'typebox';
import { type ModelPrice, SimulatedSettingsSchema } from './settings-schema.ts';

export const PROVIDER_KINDS = [
  'openai',
  'anthropic',
  'gemini',
  'azure',
  'bedrock',
  'vertex',
  'simulated',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderCapabilities {
  chat: boolean;
  stream: boolean;
  embed: boolean;
  /** Native structured output with a JSON Schema (otherwise the schema goes into the prompt). */
  nativeJsonSchema: boolean;
  /** Upper bound of temperature the upstream accepts; the gateway clamps to it. */
  maxTemperature: number;
  /** Tool calling (CONTRACT 4.1): a request with tools is only planned onto slots that can. */
  tools: boolean;
}

/**
 * Where a kind's prices come from. There is no "unpriced" choice: a kind either names its vendor
 * in `@pydantic/genai-prices` (checked at start-up, so a wrong id cannot price everything at $0)
 * or carries the prices of its own models.
 */
export type KindPricing = { vendor: string } | { models: Readonly<Record<string, ModelPrice>> };

/**
 * When a slot of this kind needs an API key: `always`; `at-default-base-url` (the vendor's own
 * service needs one, a compatible server elsewhere may not); `never`.
 */
export type KeyRequirement = 'always' | 'at-default-base-url' | 'never';

export interface ProviderKindRow {
  /** The vendor's name in error messages. */
  vendor: string;
  /**
   * Base URL as the vendor's SDK takes it; undefined for an in-process provider and for the cloud
   * kinds, whose URL is the operator's resource (azure) or derived from the region (bedrock,
   * vertex): `upstream` says which.
   */
  baseUrl: string | undefined;
  /** `none`: in process; `given`: the slot must set a baseUrl; `derived`: the adapter derives it. */
  upstream?: 'none' | 'given' | 'derived';
  chatModel: string;
  /** Undefined when the kind cannot embed (then an embedding model is refused at start-up). */
  embedModel: string | undefined;
  apiKey: KeyRequirement;
  capabilities: ProviderCapabilities;
  pricing: KindPricing;
  /**
   * The schema of the kind's own settings block, which sits under the kind's name in a slot
   * (`providers.provider-a.simulated`), when the kind has one.
   */
  settings?: TObject;
}

/**
 * Everything the gateway knows about a provider kind besides its adapter, one row per kind: the
 * loader takes defaults and key rules from here, the price book the vendor, the adapters their
 * capabilities; a slot's settings type is derived from its row (provider-settings.ts). Checked
 * against `Record<ProviderKind, …>`, so a kind without a row does not compile.
 */
export const PROVIDER_KIND_ROWS = {
  openai: {
    vendor: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    apiKey: 'at-default-base-url',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    pricing: { vendor: 'openai' },
  },
  anthropic: {
    vendor: 'Anthropic',
    baseUrl: 'https://api.anthropic.com',
    chatModel: 'claude-haiku-4-5',
    embedModel: undefined,
    apiKey: 'always',
    // No embeddings API; structured output goes through a forced tool (to-anthropic-request.ts).
    capabilities: {
      chat: true,
      stream: true,
      embed: false,
      nativeJsonSchema: true,
      maxTemperature: 1,
      tools: true,
    },
    pricing: { vendor: 'anthropic' },
  },
  gemini: {
    vendor: 'Gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    apiKey: 'always',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    pricing: { vendor: 'google' },
  },
  azure: {
    vendor: 'Azure OpenAI',
    baseUrl: undefined,
    upstream: 'given',
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    // An `api-key`, or Entra ID (`azure` block): read-cloud-settings.ts checks that one is there.
    apiKey: 'never',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    pricing: { vendor: 'azure' },
  },
  bedrock: {
    vendor: 'AWS Bedrock',
    baseUrl: undefined,
    upstream: 'derived',
    chatModel: 'anthropic.claude-haiku-4-5-20251001-v1:0',
    embedModel: 'amazon.titan-embed-text-v2:0',
    // The AWS default credential chain, or a Bedrock API key.
    apiKey: 'never',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 1,
      tools: true,
    },
    pricing: { vendor: 'aws' },
  },
  vertex: {
    vendor: 'Google Vertex AI',
    baseUrl: undefined,
    upstream: 'derived',
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    // Google's Application Default Credentials, or `credentialsFile`.
    apiKey: 'never',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    pricing: { vendor: 'google' },
  },
  simulated: {
    vendor: 'the simulated provider',
    baseUrl: undefined,
    upstream: 'none',
    chatModel: 'simulated-chat',
    embedModel: 'simulated-embed',
    apiKey: 'never',
    capabilities: {
      chat: true,
      stream: true,
      embed: true,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    // Sample prices (US dollars per million tokens), so the accounting can be seen working
    // without a key; `prices` in the YAML file can set them to 0.
    pricing: {
      models: {
        'simulated-chat': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
        'simulated-embed': { inputPerMTok: 0.02, outputPerMTok: 0 },
      },
    },
    settings: SimulatedSettingsSchema,
  },
} as const satisfies Record<ProviderKind, ProviderKindRow>;

/** The model prices the kinds carry themselves; configured `prices` override them. */
export function readKindModelPrices(): Record<string, ModelPrice> {
  const prices: Record<string, ModelPrice> = {};
  for (const row of Object.values(PROVIDER_KIND_ROWS) as ProviderKindRow[]) {
    if ('models' in row.pricing) Object.assign(prices, row.pricing.models);
  }
  return prices;
}
