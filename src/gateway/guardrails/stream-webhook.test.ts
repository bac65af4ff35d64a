import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardVerdict } from './guard-verdict.ts';
import { StreamWebhook } from './stream-webhook.ts';

/** A webhook double: records each call's text, answers when told (in order). */
function hookDouble(answer: (text: string) => Omit<GuardVerdict, 'changed'>) {
  const calls: string[] = [];
  const waiting: (() => void)[] = [];
  const check = (text: string) => {
    calls.push(text);
    return new Promise<GuardVerdict>((resolve) => {
      waiting.push(() => resolve({ ...answer(text), changed: false }));
    });
  };
  const answerNext = async () => {
    waiting.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { calls, check, answerNext };
}

const MASK = (text: string) => ({
  texts: [text.replaceAll('Falcon', '[X]')],
  blockedBy: undefined,
  events: text.includes('Falcon')
    ? [{ guard: 'hook', phase: 'output' as const, action: 'mask' as const }]
    : [],
});

describe('a stream through an output webhook', () => {
  it('has one call out at a time, batches what comes meanwhile, cuts at white space', async () => {
    const hook = hookDouble(MASK);
    const stream = new StreamWebhook(hook.check, 'hook');
    stream.add('Project Fal');
    assert.deepEqual(hook.calls, ['Project '], 'the half word waits');
    stream.add('con is ');
    stream.add('on track. ');
    assert.equal(hook.calls.length, 1, 'one call out');
    await hook.answerNext();
    assert.equal(stream.take().text, 'Project ');
    assert.deepEqual(hook.calls, ['Project ', 'Falcon is on track. ']);
    stream.add('Falcon');
    await hook.answerNext();
    assert.equal(stream.take().text, '[X] is on track. ');
    // The stretch's end goes whole.
    const drained = stream.drain();
    await hook.answerNext();
    await drained;
    assert.deepEqual(hook.calls, ['Project ', 'Falcon is on track. ', 'Falcon']);
    assert.equal(stream.take().text, '[X]');
    assert.deepEqual(stream.events, [{ guard: 'hook', phase: 'output', action: 'mask' }], 'once per stream');
  });

  it('lets nothing more go after a block', async () => {
    const hook = hookDouble((text) => ({
      texts: [text],
      blockedBy: text.includes('secret') ? 'hook' : undefined,
      events: text.includes('secret') ? [{ guard: 'hook', phase: 'output', action: 'block' }] : [],
    }));
    const stream = new StreamWebhook(hook.check, 'hook');
    stream.add('a secret ');
    stream.add('more text ');
    await hook.answerNext();
    assert.deepEqual(stream.take(), { text: '', blockedBy: 'hook' });
    stream.add('after ');
    await stream.drain();
    assert.deepEqual(hook.calls, ['a secret '], 'no call after the block');
    assert.equal(stream.blockedBy, 'hook');
  });

  it('blocks as the named guard if a check fails unexpectedly', async () => {
    const stream = new StreamWebhook(() => Promise.reject(new Error('no')), 'review');
    stream.add('text ');
    await stream.drain();
    assert.equal(stream.take().blockedBy, 'review');
  });
});
