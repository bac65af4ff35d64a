import type { SettingsOfKind } from '../../src/config/config-types.ts';
import type { CallContext } from '../../src/gateway/providers/provider.ts';

// Settings and call context shared by the OpenAI adapter and SDK-fidelity tests; test support, so
// it lives under test/ and never reaches dist/.

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
