import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { UsageRecord } from '../../storage/ports.ts';
import type { FrontDoor } from '../domain/messages.ts';
import type { ChatInput } from '../domain/use-case-inputs.ts';
import { InProcessProviderHealth } from '../health/circuit-breaker.ts';
import type { ChatStreamEvent, ProviderAdapter } from '../providers/provider.ts';
import { ProviderError } from '../providers/provider-error.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { RequestRun } from './request-run.ts';
import { runChat } from './run-chat.ts';
import { openChatStream } from './run-chat-stream.ts';
import { UpstreamCaller } from './upstream-caller.ts';

const usage = { inputTokens: 3, outputTokens: 2 };
const input: ChatInput = { messages: [{ role: 'user', content: 'hi' }], provider: 'provider-a' };

/** An adapter whose chat and stream do what each case needs. */
function fakeAdapter(
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

async function* events(list: ChatStreamEvent[], failAfter?: Error): AsyncGenerator<ChatStreamEvent> {
  for (const event of list) yield event;
  if (failAfter !== undefined) throw failAfter;
}

/** A run over fake deps whose ledger is an array, and that array. */
function startRun(
  adapter: ProviderAdapter,
  controller = new AbortController(),
  frontDoor: FrontDoor = 'native',
) {
  const records: UsageRecord[] = [];
  const profile = {
    chatModel: 'model-a',
    embedModel: undefined,
    models: [],
    canEmbed: false,
    canCallTools: true,
  };
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
    recorder: { record: (record: UsageRecord) => records.push(record) },
    limiter: { limitsFor: () => ({}) },
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
    signal: controller.signal,
  });
  return { run, records };
}

function only(records: UsageRecord[]): UsageRecord {
  assert.equal(records.length, 1, 'exactly one ledger record');
  return records[0] as UsageRecord;
}

describe('RequestRun finishes exactly once', () => {
  it('success: status 200, the answering attempt, usage as reported', async () => {
    const { run, records } = startRun(
      fakeAdapter(async () => ({ model: 'model-a', content: 'ok', finishReason: 'stop', usage })),
    );
    const answer = await runChat(input, run);
    assert.equal(answer.message.content, 'ok');
    const record = only(records);
    assert.equal(record.status, 200);
    assert.equal(record.errorCode, null);
    assert.equal(record.provider, 'provider-a');
    assert.equal(record.frontDoor, 'native');
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.tokensIn, a.tokensOut]),
      [['ok', 3, 2]],
    );
    assert.equal(run.finish(), false, 'a second finish records nothing');
    assert.equal(records.length, 1);
  });

  it('records the front door the run was started with', async () => {
    for (const door of ['openai', 'anthropic'] as const) {
      const { run, records } = startRun(
        fakeAdapter(async () => ({ model: 'model-a', content: 'ok', finishReason: 'stop', usage })),
        new AbortController(),
        door,
      );
      await runChat(input, run);
      assert.equal(only(records).frontDoor, door);
    }
  });

  it('error: a retried 503 then a rejection, recorded once with every attempt', async () => {
    let calls = 0;
    const { run, records } = startRun(
      fakeAdapter(async () => {
        calls++;
        const status = calls === 1 ? 503 : 400;
        throw new ProviderError({ slot: 'provider-a', failure: 'http', status, retryable: status === 503 });
      }),
    );
    await assert.rejects(runChat(input, run), ApiError);
    const record = only(records);
    assert.equal(record.status, 502);
    assert.equal(record.errorCode, 'upstream_error');
    assert.equal(record.provider, null);
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.upstreamStatus]),
      [
        ['http_503', 503],
        ['http_400', 400],
      ],
    );
  });

  it('abort: the client leaves during the call, recorded once as 499', async () => {
    const controller = new AbortController();
    const { run, records } = startRun(
      fakeAdapter((_call, context) => {
        controller.abort();
        const error = new ProviderError({ slot: 'provider-a', failure: 'aborted', retryable: false });
        return context.signal.aborted ? Promise.reject(error) : Promise.reject(new Error('not aborted'));
      }),
      controller,
    );
    await assert.rejects(runChat(input, run), { name: 'ClientClosedError' });
    const record = only(records);
    assert.equal(record.status, 499);
    assert.equal(record.errorCode, 'client_closed');
  });

  it('stream end: recorded once when the stream completes, with the streamed usage', async () => {
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        () =>
          events([
            { type: 'delta', content: 'he' },
            { type: 'delta', content: 'llo' },
            { type: 'usage', usage },
          ]),
      ),
    );
    const stream = await openChatStream(input, run);
    const seen: string[] = [];
    for await (const event of stream.events) seen.push(event.event);
    assert.deepEqual(seen, ['delta', 'delta', 'done']);
    await stream.events.return(undefined);
    const record = only(records);
    assert.equal(record.status, 200);
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.tokensIn, a.tokensOut, a.usageEstimated]),
      [['ok', 3, 2, false]],
    );
    assert.notEqual(record.upstreamFirstByteMs, null);
    assert.notEqual(record.upstreamMs, null);
  });

  it('stream failure: an upstream error mid-stream is recorded once and ends with an error event', async () => {
    const failure = new ProviderError({ slot: 'provider-a', failure: 'connection', retryable: true });
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        () => events([{ type: 'delta', content: 'he' }], failure),
      ),
    );
    const stream = await openChatStream(input, run);
    const seen: string[] = [];
    for await (const event of stream.events) seen.push(event.event);
    assert.deepEqual(seen, ['delta', 'error']);
    const record = only(records);
    assert.equal(record.errorCode, 'upstream_error');
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.usageEstimated]),
      [['stream_failed', true]],
    );
  });

  it('stream left by the client: returning the events early records once as 499', async () => {
    const controller = new AbortController();
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        () =>
          events([
            { type: 'delta', content: 'a' },
            { type: 'delta', content: 'b' },
          ]),
      ),
      controller,
    );
    const stream = await openChatStream(input, run);
    const first = await stream.events.next();
    assert.equal(first.value?.event, 'delta');
    controller.abort();
    await stream.events.return(undefined);
    await stream.events.return(undefined);
    const record = only(records);
    assert.equal(record.status, 499);
    assert.equal(record.errorCode, 'client_closed');
  });
});
