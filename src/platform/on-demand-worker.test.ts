import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { OnDemandWorker } from './on-demand-worker.ts';

/** Echoes `{id, value}` doubled; a message `{die: true}` ends the thread with code 3. */
const ECHO = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (message) => {
  if (message.die) process.exit(3);
  parentPort.postMessage({ id: message.id, value: message.value * 2 });
});`;

interface Call {
  resolve(value: number): void;
  reject(error: Error): void;
}

function echoWorker(idleMs = 10_000) {
  let created = 0;
  const lost: { count: number; cause: Error }[] = [];
  const worker = new OnDemandWorker<Call, { id: number; value: number }>(
    'the echo thread',
    {
      create: () => {
        created++;
        return new Worker(ECHO, { eval: true });
      },
      answer: (call, reply) => call.resolve(reply.value),
      lost: (calls, cause) => {
        lost.push({ count: calls.length, cause });
        for (const call of calls) call.reject(cause);
      },
    },
    idleMs,
  );
  const ask = (message: Record<string, unknown>) =>
    new Promise<number>((resolve, reject) => {
      const id = worker.nextId();
      worker.send(id, { resolve, reject }, { ...message, id });
    });
  return { worker, ask, lost, created: () => created };
}

describe('a worker started on demand (platform/on-demand-worker.ts)', () => {
  it('starts with the first call, answers each call by its id, and ends after the idle time', async () => {
    const { worker, ask, created } = echoWorker(50);
    assert.equal(worker.running, false);
    const answers = await Promise.all([ask({ value: 1 }), ask({ value: 2 }), ask({ value: 3 })]);
    assert.deepEqual(answers, [2, 4, 6]);
    assert.equal(created(), 1, 'one thread for the three calls');
    assert.equal(worker.pending, 0);
    assert.equal(worker.running, true);
    await sleep(200);
    assert.equal(worker.running, false, 'ended once idle');
    assert.equal(await ask({ value: 5 }), 10);
    assert.equal(created(), 2, 'a later call starts a new one');
    await worker.close(new Error('done'));
  });

  it('hands the calls of a thread that died back to its user, with the exit as the cause', async () => {
    const { worker, ask, lost } = echoWorker();
    const dying = ask({ die: true });
    await assert.rejects(dying, /the echo thread exited with code 3/);
    assert.equal(lost.length, 1);
    assert.equal(lost[0]?.count, 1);
    assert.equal(worker.running, false);
    assert.equal(await ask({ value: 4 }), 8, 'the next call starts a new thread');
    await worker.close(new Error('done'));
  });

  it('keeps nothing for a message that cannot be sent, and still ends the idle thread', async () => {
    const { worker, ask } = echoWorker(50);
    await assert.rejects(ask({ value: () => 1 }), /could not be cloned/);
    assert.equal(worker.pending, 0);
    assert.equal(worker.running, true);
    await sleep(200);
    assert.equal(worker.running, false);
  });

  it('on close, hands the calls in flight back with the cause given', async () => {
    const { worker, ask, lost } = echoWorker();
    await ask({ value: 1 });
    const never = new Promise<number>((resolve, reject) => {
      // A call whose reply the close overtakes: sent, then the thread is ended at once.
      worker.send(worker.nextId(), { resolve, reject }, { id: -1, value: 1 });
    });
    const rejected = assert.rejects(never, /closed by the test/);
    await worker.close(new Error('closed by the test'));
    await rejected;
    assert.equal(lost.at(-1)?.count, 1);
    assert.equal(worker.running, false);
  });
});
