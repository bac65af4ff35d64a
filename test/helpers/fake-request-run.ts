import assert from 'node:assert/strict';
import type { FrontDoor } from '../../src/gateway/domain/messages.ts';
import type { Tokenizer } from '../../src/gateway/domain/token-count.ts';
import type { ChatInput } from '../../src/gateway/domain/use-case-inputs.ts';
import { InProcessProviderHealth } from '../../src/gateway/health/circuit-breaker.ts';
import type { ChatStreamEvent, ProviderAdapter } from '../../src/gateway/providers/provider.ts';
import type { ProviderRegistry } from '../../src/gateway/providers/registry.ts';
import type { GatewayDeps } from '../../src/gateway/services/gateway-deps.ts';
import { RequestRun } from '../../src/gateway/services/run/request-run.ts';
import { UpstreamCaller } from '../../src/gateway/services/upstream/upstream-caller.ts';
import { systemClock } from '../../src/platform/clock.ts';
import type { UsageRecord } from '../../src/storage/ports.ts';

/*
 * A RequestRun over fake deps (a fake adapter, a ledger that is an array, a tokenizer that counts
 * characters, limits as each test needs), for the run's unit tests.
 */

export const usage = { inputTokens: 3, outputTokens: 2 };
export const input: ChatInput = { messages: [{ role: 'user', content: 'hi' }], provider: 'provider-a' };

/** An adapter whose chat and stream do what each case needs. */
export function fakeAdapter(
  chat: ProviderAdapter['chat'],
  streamChat: ProviderAdapter['streamChat'] = () => events([]),
): ProviderAdapter {
  return {
    slot: 'provider-a',
    kind: 'openai',
    capabilities: {
      chat: true,
      stream: true,
      embed: false,
      nativeJsonSchema: true,
      maxTemperature: 2,
      tools: true,
    },
    chat,
    streamChat,
    embed: () => Promise.reject(new Error('not used')),
  };
}

export async function* events(list: ChatStreamEvent[], failAfter?: Error): AsyncGenerator<ChatStreamEvent> {
  for (const event of list) yield event;
  if (failAfter !== undefined) throw failAfter;
}

/** Calls to the tokenizer below, which a client leaving must not make. */
let tokenizerCalls = 0;

export function tokenizerCallCount(): number {
  return tokenizerCalls;
}

/** Counts a text's characters: what a test can read back from an estimate. */
const CHARACTER_TOKENIZER: Tokenizer = {
  count: async (texts) => {
    tokenizerCalls++;
    return (typeof texts === 'string' ? [texts] : texts).join('').length;
  },
  tokenizeAnswer: () => Promise.reject(new Error('not used')),
};

const NO_LIMITS = { limitsFor: () => ({}), scopesFor: () => [] };

/** A run over fake deps whose ledger is an array, and that array. */
export function startRun(
  adapter: ProviderAdapter,
  controller = new AbortController(),
  frontDoor: FrontDoor = 'native',
  limiter: unknown = NO_LIMITS,
) {
  const records: UsageRecord[] = [];
  const profile = {
    chatModel: 'model-a',
    embedModel: undefined,
    models: [],
    canEmbed: false,
    canCallTools: true,
  };
  // A slot of one deployment, as every slot without `deployments` is.
  const deployment = {
    slot: 'provider-a',
    name: null,
    key: 'provider-a',
    weight: 1,
    models: undefined,
    adapter,
  };
  const pool = { slot: 'provider-a', strategy: 'weighted', deployments: [deployment], callLimitMs: 10_000 };
  const registry = {
    adapter: () => adapter,
    pool: () => pool,
    profiles: { 'provider-a': profile, 'provider-b': profile, 'provider-c': profile },
    settings: () => ({ kind: 'openai' }),
  } as unknown as ProviderRegistry;
  const caller = new UpstreamCaller({
    registry,
    retry: { maxRetries: 1, baseDelayMs: 0, maxDelayMs: 0, budgetMs: 10_000 },
    clock: systemClock,
    health: new InProcessProviderHealth({ failureThreshold: 100, cooldownMs: 1_000 }),
    wait: async () => {},
  });
  const deps = {
    config: { routing: { chat: [], embed: [], tasks: {} } },
    registry,
    priceBook: { resolve: () => ({ price: { inputPerMTok: 1, outputPerMTok: 1 }, source: 'config' }) },
    caller,
    recorder: { record: (record: UsageRecord) => records.push(record), admitted: () => {} },
    limiter,
    tokenizer: CHARACTER_TOKENIZER,
    clock: systemClock,
  } as unknown as GatewayDeps;
  const run = new RequestRun(deps, {
    id: 'chat_1',
    requestId: 'req-1',
    app: 'app',
    operation: 'chat',
    frontDoor,
    task: undefined,
    metadata: undefined,
    sessionKey: undefined,
    startedAt: systemClock.monotonic(),
    receivedAt: Date.now(),
  });
  // The edge tells the run when its client leaves; here, the test's controller stands for it.
  controller.signal.addEventListener('abort', () => run.clientLeft());
  return { run, records };
}

export function only(records: UsageRecord[]): UsageRecord {
  assert.equal(records.length, 1, 'exactly one ledger record');
  return records[0] as UsageRecord;
}
