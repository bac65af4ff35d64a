import type { SettingsOfKind } from '../../../config/config-types.ts';
import type { CallContext } from '../provider.ts';

// Test support shared by the adapter and SDK-fidelity tests (not imported by the adapter itself).

export function openAISettings(baseUrl: string, apiKey?: string): SettingsOfKind<'openai'> {
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
  };
}

export function callContext(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, requestId: 'req-test', attempt: 0, metadata: undefined };
}
