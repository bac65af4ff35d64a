import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { UsageRecord } from '../../storage/ports.ts';
import type { FrontDoor } from '../domain/messages.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import type { ChatInput } from '../domain/use-case-inputs.ts';
import { InProcessProviderHealth } from '../health/circuit-breaker.ts';
import type { ChatStreamEvent, ProviderAdapter } from '../providers/provider.ts';
import { ProviderError } from '../providers/provider-error.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { ClientClosedError } from './client-closed-error.ts';
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

/** Calls to the tokenizer below, which a client leaving must not make. */
let tokenizerCalls = 0;

/** Counts a text's characters: what a test can read back from an estimate. */
const CHARACTER_TOKENIZER: Tokenizer = {
  count: async (texts) => {
    tokenizerCalls++;
    return (typeof texts === 'string' ? [texts] : texts).join('').length;
  },
  tokenizeAnswer: () => Promise.reject(new Error('not used')),
};

const NO_LIMITS = { limitsFor: () => ({}) };

/** A run over fake deps whose ledger is an array, and that array. */
function startRun(
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
  const registry = {
    adapter: () => adapter,
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
    startedAt: systemClock.monotonic(),
    receivedAt: Date.now(),
  });
  // The edge tells the run when its client leaves; here, the test's controller stands for it.
  controller.signal.addEventListener('abort', () => run.clientLeft());
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
    assert.equal(records.length, 0, 'the answer is not the end: the edge closes the run once it sent it');
    await run.close();
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
    await run.close();
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
      await run.close();
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

  it('close: a client gone before the answer was sent is 499, with the usage the upstream reported', async () => {
    const { run, records } = startRun(
      fakeAdapter(async () => ({ model: 'model-a', content: 'ok', finishReason: 'stop', usage })),
    );
    await runChat(input, run);
    await run.close(new ClientClosedError());
    await run.close();
    const record = only(records);
    assert.deepEqual([record.status, record.errorCode], [499, 'client_closed']);
    assert.deepEqual([record.tokensIn, record.tokensOut, record.usageEstimated], [3, 2, false]);
  });

  it('a call the client abandoned is an attempt: the prompt guessed, nothing out, no tokenizer', async () => {
    const controller = new AbortController();
    const { run, records } = startRun(
      fakeAdapter(
        (_call, context) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () =>
              reject(new ProviderError({ slot: 'provider-a', failure: 'aborted', retryable: false })),
            );
            setImmediate(() => controller.abort());
          }),
      ),
      controller,
    );
    const callsBefore = tokenizerCalls;
    await assert.rejects(runChat(input, run), ClientClosedError);
    await run.close(new ClientClosedError());
    assert.equal(tokenizerCalls, callsBefore, "the tokenizer's thread is not started for it");
    const record = only(records);
    assert.equal(record.status, 499);
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.tokensIn, a.tokensOut, a.usageEstimated, a.upstreamStatus]),
      // 'hi' is two characters: one token at four characters to a token, the limits' guess.
      [['client_closed', 1, 0, true, null]],
    );
    assert.equal(record.tokensIn, 1);
    assert.ok(record.costUsd > 0, 'priced');
  });

  it('a run refused by a limit leaves no record, closed or not', async () => {
    const refusal = new ApiError('rate_limited', 'app reached its limit');
    const limiter = { limitsFor: () => ({ requestsPerMinute: 1 }), admit: () => Promise.reject(refusal) };
    const { run, records } = startRun(
      fakeAdapter(() => Promise.reject(new Error('not called'))),
      new AbortController(),
      'native',
      limiter,
    );
    await assert.rejects(runChat(input, run), refusal);
    await run.close(refusal);
    assert.equal(records.length, 0);
  });

  it('a stream nobody read is ended by close: one 499 record, the upstream let go, its usage kept', async () => {
    let released = false;
    const settled: { tokens: number; costUsd: number }[] = [];
    const limiter = {
      limitsFor: () => ({ concurrentRequests: 1, tokensPerMinute: 1000 }),
      admit: async () => ({
        headers: {},
        settle: async (actual: { tokens: number; costUsd: number }) => settled.push(actual),
      }),
    };
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        async function* () {
          try {
            yield { type: 'delta', content: 'he' };
            yield { type: 'delta', content: 'llo' };
            yield { type: 'usage', usage };
          } finally {
            released = true;
          }
        },
      ),
      new AbortController(),
      'native',
      limiter,
    );
    const stream = await openChatStream(input, run);
    // A writer that returned its frames before it asked for the first event: the events never started.
    await stream.events.return(undefined);
    assert.equal(records.length, 0);
    await run.close();
    await run.close();
    const record = only(records);
    assert.deepEqual([record.status, record.errorCode], [499, 'client_closed']);
    assert.ok(released, "the upstream's stream was returned");
    assert.ok(run.signal.aborted, 'the upstream call is cancelled');
    assert.deepEqual(
      record.attempts.map((a) => [a.outcome, a.tokensIn, a.tokensOut, a.usageEstimated]),
      [['client_closed', 3, 2, false]],
    );
    // The concurrency lease and the token reservation go back in one settlement, to what was used.
    assert.equal(settled.length, 1);
    assert.equal(settled[0]?.tokens, 5);
  });

  it('a stream left after one delta is billed for what the upstream had sent, not what was read', async () => {
    const controller = new AbortController();
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        async function* (_call, context) {
          yield { type: 'delta', content: 'one ' };
          yield { type: 'delta', content: 'two ' };
          yield { type: 'delta', content: 'three' };
          // Then nothing more until the read is aborted, as a real upstream read.
          const aborted = () =>
            new ProviderError({ slot: 'provider-a', failure: 'aborted', retryable: false });
          if (context.signal.aborted) throw aborted();
          await new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(aborted())),
          );
        },
      ),
      controller,
    );
    const stream = await openChatStream(input, run);
    const first = await stream.events.next();
    assert.deepEqual(first.value, { event: 'delta', data: { content: 'one ' } });
    controller.abort();
    await stream.events.return(undefined);
    await run.close();
    const record = only(records);
    assert.equal(record.status, 499);
    assert.equal(record.tokensOut, 'one two three'.length, 'every delta the upstream sent, estimated');
    assert.equal(record.usageEstimated, true);
  });

  it('an adapter that ignores the abort does not hold the run open', async () => {
    const controller = new AbortController();
    const { run, records } = startRun(
      fakeAdapter(
        () => Promise.reject(new Error('not used')),
        async function* () {
          yield { type: 'delta', content: 'never ' };
          await new Promise(() => {});
        },
      ),
      controller,
    );
    const stream = await openChatStream(input, run);
    await stream.events.next();
    controller.abort();
    const started = performance.now();
    await stream.events.return(undefined);
    await run.close();
    assert.ok(performance.now() - started < 2_000, 'closed within the drain bound');
    assert.equal(only(records).status, 499);
  });
});
