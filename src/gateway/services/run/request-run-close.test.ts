import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fakeAdapter,
  input,
  only,
  startRun,
  tokenizerCallCount,
  usage,
} from '../../../../test/helpers/fake-request-run.ts';
import { ApiError } from '../../../platform/errors.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import { runChat } from '../use-cases/run-chat.ts';
import { openChatStream } from '../use-cases/run-chat-stream.ts';
import { ClientClosedError } from './client-closed-error.ts';

describe('RequestRun closed by the edge (CONTRACT 5.1)', () => {
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
    const callsBefore = tokenizerCallCount();
    await assert.rejects(runChat(input, run), ClientClosedError);
    await run.close(new ClientClosedError());
    assert.equal(tokenizerCallCount(), callsBefore, "the tokenizer's thread is not started for it");
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
    const limiter = {
      limitsFor: () => ({ requestsPerMinute: 1 }),
      scopesFor: () => [{}],
      admit: () => Promise.reject(refusal),
    };
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
      scopesFor: () => [{}],
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
