import type { ProviderKind, ProviderTimeouts, SimulatedSettings } from './config-types.ts';

export interface KindDefaults {
  baseUrl: string | undefined;
  chatModel: string;
  embedModel: string | undefined;
}

/** The vendor defaults of each provider kind: base URL as the vendor's SDK takes it, default models. */
export const KIND_DEFAULTS: Record<ProviderKind, KindDefaults> = {
  simulated: { baseUrl: undefined, chatModel: 'simulated-chat', embedModel: 'simulated-embed' },
  openai: {
    baseUrl: 'https://api.openai.com/v1',
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
  },
  anthropic: { baseUrl: 'https://api.anthropic.com', chatModel: 'claude-haiku-4-5', embedModel: undefined },
  gemini: {
    baseUrl: 'https://generativelanguage.googleapis.com',
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
  },
};

export const DEFAULT_TIMEOUTS: ProviderTimeouts = { connectMs: 5_000, firstByteMs: 30_000, totalMs: 120_000 };

export const DEFAULT_SIMULATED: SimulatedSettings = {
  latencyMs: 0,
  chunkDelayMs: 0,
  chunkTokens: 4,
  embedDimensions: 256,
  failureRate: 0,
  allowRequestDirectives: true,
};

/** Output-token cap used where an upstream requires one and the caller gave none (Anthropic). */
export const DEFAULT_MAX_TOKENS = 4096;

export const DEFAULTS = {
  host: '0.0.0.0',
  gatewayPort: 8787,
  sitePort: 8788,
  dataDir: './data',
  logLevel: 'info',
  maxBodyBytes: 4 * 1024 * 1024,
  newsletterRateLimitPerMinute: 10,
  retry: { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 4_000, budgetMs: 25_000 },
  circuit: { failureThreshold: 5, cooldownMs: 30_000 },
  usage: { retentionDays: 400 },
  json: { maxAttempts: 3, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 48, schemaCacheSize: 500 },
  maxEmbedInputs: 2048,
  streamKeepAliveMs: 15_000,
  shutdownGraceMs: 10_000,
  connections: {
    // Headers are a few hundred bytes: a client that needs 15 s for them is stalling.
    headersTimeoutMs: 15_000,
    // The whole request, body included (4 MiB in 60 s is 70 kB/s); it never limits the answer,
    // so a long streamed chat answer is not cut.
    requestTimeoutMs: 60_000,
    // Behind a load balancer, idle keep-alive connections must outlive the balancer's timeout.
    keepAliveTimeoutMs: 72_000,
  },
  // Browsers open 6 connections per origin; 32 leaves room for several people behind one NAT.
  siteMaxConcurrentRequestsPerClient: 32,
} as const;

/**
 * Sample prices of the simulated models (US dollars per million tokens), so the accounting can be
 * seen working without a key. They are labelled `simulated` in every answer and can be set to 0.
 */
export const SIMULATED_PRICES = {
  'simulated-chat': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'simulated-embed': { inputPerMTok: 0.02, outputPerMTok: 0 },
} as const;
