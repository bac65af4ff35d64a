import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  events,
  fakeAdapter,
  input,
  only,
  startRun,
  usage,
} from '../../../../test/helpers/fake-request-run.ts';
import { ApiError } from '../../../platform/errors.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import { runChat } from '../use-cases/run-chat.ts';
import { openChatStream } from '../use-cases/run-chat-stream.ts';

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
});
