import { after, before } from 'node:test';
import { type Harness, shareGateway } from './gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from './mock-anthropic-server.ts';
import { MockGeminiServer } from './mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from './mock-openai-server.ts';

/** A shared gateway whose slots are the three vendors' recording mocks, and the mocks. */
export interface VendorSlots {
  gw: Harness;
  /** Slot A (`provider-a`), kind openai. */
  openai: MockOpenAIServer;
  /** Slot B (`provider-b`), kind gemini. */
  gemini: MockGeminiServer;
  /** Slot C (`provider-c`), kind anthropic. */
  anthropic: MockAnthropicServer;
}

/**
 * Inside a describe: the three mocks started before its tests and closed after them, and a gateway
 * shared by its tests with slot A on OpenAI's, B on Gemini's and C on Anthropic's (and `file` as
 * its YAML configuration). The mocks are properties, set once the describe's `before` hooks have run.
 */
export function shareVendorSlots(file?: Record<string, unknown>): VendorSlots {
  const slots = {} as VendorSlots;
  before(async () => {
    slots.openai = await startMockOpenAI({ apiKey: 'openai-key' });
    slots.gemini = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
    slots.anthropic = await startMockAnthropic();
  });
  slots.gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: slots.openai.baseUrl,
      PROVIDER_A_API_KEY: 'openai-key',
      PROVIDER_B_KIND: 'gemini',
      PROVIDER_B_BASE_URL: slots.gemini.origin,
      PROVIDER_B_API_KEY: 'gemini-key',
      PROVIDER_C_KIND: 'anthropic',
      PROVIDER_C_BASE_URL: slots.anthropic.origin,
      PROVIDER_C_API_KEY: 'anthropic-key',
    },
    ...(file === undefined ? {} : { file }),
  }));
  after(async () => {
    await Promise.all([slots.openai.close(), slots.gemini.close(), slots.anthropic.close()]);
  });
  return slots;
}
