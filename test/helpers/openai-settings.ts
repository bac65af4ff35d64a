import type { SettingsOfKind } from '../../src/config/config-types.ts';

// Settings shared by the OpenAI adapter and SDK-fidelity tests; test support, so
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
