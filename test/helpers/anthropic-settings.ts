import type { SettingsOfKind } from '../../src/config/config-types.ts';

/** Slot B bound to an Anthropic-kind upstream at `origin`, for the Anthropic adapter's tests. */
export function anthropicSettings(
  origin: string,
  apiKey: string,
  extra: Partial<SettingsOfKind<'anthropic'>> = {},
): SettingsOfKind<'anthropic'> {
  return {
    slot: 'provider-b',
    kind: 'anthropic',
    baseUrl: origin,
    apiKey,
    chatModel: 'claude-sonnet-4-5',
    embedModel: undefined,
    models: ['claude-sonnet-4-5'],
    defaultMaxTokens: 777,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, totalMs: 5_000 },
    ...extra,
  };
}
