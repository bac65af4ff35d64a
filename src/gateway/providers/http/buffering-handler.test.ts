import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { type BufferedResponse, BufferingHandler } from './buffering-handler.ts';

/** Drives the handler as undici would, recording what it asked of the connection. */
function harness(limits = { successBytes: 10, errorBytes: 4 }) {
  const aborts: Error[] = [];
  const controller = {
    abort: (reason: Error) => {
      aborts.push(reason);
    },
  } as unknown as Dispatcher.DispatchController;
  let outcome: { value?: BufferedResponse; error?: unknown } | undefined;
  let settledCalls = 0;
  const handler = new BufferingHandler(
    { ...limits, tooLarge: (limit) => new Error(`larger than ${limit}`) },
    (value) => {
      assert.equal(outcome, undefined, 'settles once');
      outcome = { value };
    },
    (error) => {
      assert.equal(outcome, undefined, 'settles once');
      outcome = { error };
    },
  );
  handler.onSettled = () => settledCalls++;
  return { handler, controller, aborts, outcome: () => outcome, settledCalls: () => settledCalls };
}

describe('BufferingHandler', () => {
  it('resolves with status, headers and the body once it ends, skipping 1xx answers', () => {
    const h = harness();
    h.handler.onRequestStart(h.controller);
    h.handler.onResponseStart(h.controller, 100, {});
    h.handler.onResponseStart(h.controller, 200, { 'content-type': 'application/json' });
    h.handler.onResponseData(h.controller, Buffer.from('{"a":'));
    assert.equal(h.outcome(), undefined);
    h.handler.onResponseData(h.controller, Buffer.from('1}'));
    h.handler.onResponseEnd();
    const value = h.outcome()?.value;
    assert.deepEqual(
      { status: value?.status, headers: value?.headers, text: value?.text },
      { status: 200, headers: { 'content-type': 'application/json' }, text: '{"a":1}' },
    );
    assert.deepEqual(value?.body, Buffer.from('{"a":1}'), 'the bytes as they came');
    assert.equal(h.settledCalls(), 1);
  });

  it('fails a 2xx body over its limit and drops the connection', () => {
    const h = harness();
    h.handler.onRequestStart(h.controller);
    h.handler.onResponseStart(h.controller, 200, {});
    h.handler.onResponseData(h.controller, Buffer.from('0123456789'));
    assert.equal(h.outcome(), undefined, 'exactly the limit is still fine');
    h.handler.onResponseData(h.controller, Buffer.from('x'));
    assert.match(String(h.outcome()?.error), /larger than 10/);
    assert.equal(h.aborts.length, 1);
    // undici reports the abort back; the call is already settled.
    h.handler.onResponseError(h.controller, new Error('aborted'));
    assert.equal(h.settledCalls(), 1);
  });

  it('keeps the first bytes of an error body and stops reading there', () => {
    const h = harness();
    h.handler.onRequestStart(h.controller);
    h.handler.onResponseStart(h.controller, 503, { 'retry-after': '1' });
    h.handler.onResponseData(h.controller, Buffer.from('abcdef'));
    const value = h.outcome()?.value;
    assert.deepEqual(
      { status: value?.status, headers: value?.headers, text: value?.text },
      { status: 503, headers: { 'retry-after': '1' }, text: 'abcd' },
    );
    assert.equal(h.aborts.length, 1);
    h.handler.onResponseData(h.controller, Buffer.from('more'));
    h.handler.onResponseEnd();
    assert.equal(h.settledCalls(), 1);
  });

  it('an abort before undici starts the request rejects now and aborts the request when it starts', () => {
    const h = harness();
    const reason = new Error('caller left');
    h.handler.abort(reason);
    assert.equal(h.outcome()?.error, reason);
    assert.equal(h.aborts.length, 0);
    h.handler.onRequestStart(h.controller);
    assert.deepEqual(h.aborts, [reason]);
  });

  it('an abort mid-answer rejects and aborts the request; after the answer it does nothing', () => {
    const mid = harness();
    mid.handler.onRequestStart(mid.controller);
    mid.handler.onResponseStart(mid.controller, 200, {});
    mid.handler.abort(new Error('time limit'));
    assert.match(String(mid.outcome()?.error), /time limit/);
    assert.equal(mid.aborts.length, 1);

    const done = harness();
    done.handler.onRequestStart(done.controller);
    done.handler.onResponseStart(done.controller, 200, {});
    done.handler.onResponseEnd();
    done.handler.abort(new Error('late'));
    assert.equal(done.outcome()?.value?.text, '');
    assert.equal(done.aborts.length, 0);
  });

  it('passes a transport error on', () => {
    const h = harness();
    const error = new Error('socket hang up');
    h.handler.onResponseError(null, error);
    assert.equal(h.outcome()?.error, error);
  });
});
