import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import { type Harness, shareGateway } from './gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from './mock-anthropic-server.ts';
import { MockGeminiServer } from './mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from './mock-openai-server.ts';

/** The harness's app masks; this one is blocked on input, `tight` on output. */
export const STRICT = { 'x-gateway-app': 'strict', 'x-gateway-secret': 'strict-secret-0123456789' };
export const TIGHT = { 'x-gateway-app': 'tight', 'x-gateway-secret': 'tight-secret-0123456789' };

/** What an agent reads out of a `.env` file: every value one the built-in detectors know. */
export const SECRETS = {
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
  email: 'alice.secret@example.com',
  card: '4111 1111 1111 1111',
  iban: 'DE89370400440532013000',
  ssn: '078-05-1120',
  phone: '+1 415 555 2671',
} as const;

export const DOT_ENV = [
  `AWS_ACCESS_KEY_ID=${SECRETS.aws}`,
  `GITHUB_TOKEN=${SECRETS.github}`,
  `SUPPORT_EMAIL=${SECRETS.email}`,
  `TEST_CARD=${SECRETS.card}`,
  `PAYOUT_IBAN=${SECRETS.iban}`,
  `OWNER_SSN=${SECRETS.ssn}`,
  `ON_CALL=${SECRETS.phone}`,
].join('\n');

/** The .env file as the gateway must pass it on to a masking app. */
export const DOT_ENV_MASKED = [
  'AWS_ACCESS_KEY_ID=[REDACTED:AWS_ACCESS_KEY]',
  'GITHUB_TOKEN=[REDACTED:GITHUB_TOKEN]',
  'SUPPORT_EMAIL=[REDACTED:EMAIL]',
  'TEST_CARD=[REDACTED:CARD]',
  'PAYOUT_IBAN=[REDACTED:IBAN]',
  'OWNER_SSN=[REDACTED:US_SSN]',
  'ON_CALL=[REDACTED:PHONE]',
].join('\n');

/** Fails naming the secret when `text` holds any of the values above. */
export function findSecret(text: string): string | undefined {
  return Object.values(SECRETS).find((value) => text.includes(value));
}

export interface GuardedGateway {
  gw: Harness;
  /** Slot A, kind openai. */
  openai: MockOpenAIServer;
  /** Slot B, kind gemini (the Gemini door's same-vendor lane). */
  gemini: MockGeminiServer;
  /** Slot C, kind anthropic (the Anthropic door's same-vendor lane). */
  anthropic: MockAnthropicServer;
  logs: string[];
}

/**
 * A gateway shared by a describe's tests, on OpenAI's, Gemini's and Anthropic's recording mocks
 * (slots A, B and C), with the built-in guards: the harness's app masks secrets and personal data on input
 * and output, `strict` is blocked on input; a words guard attached to the `guarded` task logs.
 * Log lines are kept, for the tests that grep them.
 */
export function shareGuardedGateway(guardrails: Record<string, unknown> = GUARDRAILS): GuardedGateway {
  const shared = { logs: [] as string[] } as GuardedGateway;
  before(async () => {
    shared.openai = await startMockOpenAI({ apiKey: 'openai-key' });
    shared.anthropic = await startMockAnthropic();
    shared.gemini = await MockGeminiServer.start({ apiKey: 'gemini-key' });
  });
  shared.gw = shareGateway(() => ({
    env: {
      GATEWAY_APPS: `test-app:test-secret-0123456789,strict:${STRICT['x-gateway-secret']},tight:${TIGHT['x-gateway-secret']}`,
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: shared.openai.baseUrl,
      PROVIDER_A_API_KEY: 'openai-key',
      PROVIDER_B_KIND: 'gemini',
      PROVIDER_B_BASE_URL: shared.gemini.origin,
      PROVIDER_B_API_KEY: 'gemini-key',
      PROVIDER_C_KIND: 'anthropic',
      PROVIDER_C_BASE_URL: shared.anthropic.origin,
      PROVIDER_C_API_KEY: 'anthropic-key',
      LOG_LEVEL: 'info',
    },
    file: {
      routing: { tasks: { guarded: [{ provider: 'provider-a', model: 'gpt-4o-mini' }] } },
      guardrails,
    },
    logs: new Writable({
      write(chunk, _encoding, done) {
        shared.logs.push(String(chunk));
        done();
      },
    }),
  }));
  after(async () => {
    await Promise.all([shared.openai.close(), shared.anthropic.close(), shared.gemini.close()]);
  });
  return shared;
}

export const GUARDRAILS = {
  guards: {
    'mask-secrets': { type: 'secrets', phase: ['input', 'output'], action: 'mask' },
    'mask-pii': { type: 'pii', phase: ['input', 'output'], action: 'mask' },
    'block-secrets': { type: 'secrets', phase: 'input', action: 'block' },
    codenames: { type: 'words', phase: 'input', action: 'log', words: ['falcon'] },
    'block-answers': { type: 'secrets', phase: 'output', action: 'block' },
  },
  apps: { 'test-app': ['mask-secrets', 'mask-pii'], strict: ['block-secrets'], tight: ['block-answers'] },
  routes: { guarded: ['codenames'] },
};
