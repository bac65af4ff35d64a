import type { SettingsOfKind, SimulatedSettings } from '../../src/config/config-types.ts';

/**
 * A simulated slot's settings for a provider built by hand in a unit test: no latency, 32-number
 * vectors, no random failures; `simulated` overrides any of those. The HTTP settings a simulated
 * slot never reads (base URL, key, timeouts) are left out.
 */
export function simulatedSlot(simulated: Partial<SimulatedSettings> = {}): SettingsOfKind<'simulated'> {
  return {
    slot: 'provider-a',
    kind: 'simulated',
    chatModel: 'chat',
    embedModel: 'embed',
    models: [],
    simulated: {
      latencyMs: 0,
      chunkDelayMs: 0,
      chunkTokens: 4,
      embedDimensions: 32,
      failureRate: 0,
      allowRequestDirectives: false,
      ...simulated,
    },
  } as unknown as SettingsOfKind<'simulated'>;
}
