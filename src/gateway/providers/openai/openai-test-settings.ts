import type { ProviderSettings } from '../../../config/config-types.ts';
import type { CallContext } from '../provider.ts';

// Test support shared by the adapter and SDK-fidelity tests (not imported by the adapter itself).

export function openAISettings(baseUrl: string, apiKey?: string): ProviderSettings {
  return {
    slot: 'provider-a',
    kind: 'openai',
    baseUrl,
    apiKey,
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    models: [],
    defaultMaxTokens: 1024,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, totalMs: 10_000 },
    simulated: {
      latencyMs: 0,
      chunkDelayMs: 0,
      chunkTokens: 1,
      embedDimensions: 8,
      failureRate: 0,
      allowRequestDirectives: false,
    },
  };
}

export function callContext(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, requestId: 'req-test', attempt: 0, metadata: undefined };
}
