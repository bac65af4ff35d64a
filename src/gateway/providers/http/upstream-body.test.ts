import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CountingJsonThread, DYING_JSON_WORKER_URL } from '../../../../test/helpers/json-thread-doubles.ts';
import { JsonThread, OFF_THREAD_BYTES } from '../../../platform/json-thread/json-thread.ts';
import { isLargePlainJson, upstreamBody } from './upstream-body.ts';

/** An agent's request: a history of `turns` messages of `chars` characters each, with tools. */
function history(turns: number, chars: number): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    messages: Array.from({ length: turns }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${i} ✓ "${'x'.repeat(chars)}"`,
    })),
    tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object', properties: {} } } }],
    stream: true,
    temperature: undefined,
  };
}

/** An object nested `levels` deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const text = async (body: string | Buffer | Promise<string | Buffer>) => (await body).toString();

describe('which upstream bodies are written on the JSON thread', () => {
  it('a large plain body is, a small one is not', () => {
    assert.equal(isLargePlainJson(history(100, 4000), OFF_THREAD_BYTES), true);
    assert.equal(
      isLargePlainJson({ messages: [{ content: 'x'.repeat(OFF_THREAD_BYTES) }] }, OFF_THREAD_BYTES),
      true,
    );
    assert.equal(isLargePlainJson(history(10, 100), OFF_THREAD_BYTES), false);
  });

  it('a large body holding what a structured clone would carry otherwise, or cannot carry, is not', () => {
    const big = 'x'.repeat(OFF_THREAD_BYTES);
    const cycle: Record<string, unknown> = { big };
    cycle.self = cycle;
    class Message {
      content = big;
    }
    for (const value of [
      { big, at: new Date(0) },
      { big, custom: { toJSON: () => 'written' } },
      { big, n: 10n },
      { big, f: () => 1 },
      { big, s: Symbol('s') },
      { messages: [new Message()] },
      { big, bytes: new Uint8Array(4) },
      { big, deep: nested(200) },
      cycle,
    ])
      assert.equal(isLargePlainJson(value, OFF_THREAD_BYTES), false);
  });
});

describe('an upstream body', () => {
  const thread = new CountingJsonThread();
  after(() => thread.close());

  it('is what JSON.stringify writes, on the thread or here', async () => {
    for (const value of [
      history(100, 4000),
      history(3, 10),
      { messages: [{ content: '\uD800'.repeat(OFF_THREAD_BYTES) }] },
    ]) {
      assert.equal(await text(upstreamBody(value, thread)), JSON.stringify(value));
    }
    assert.equal(thread.written, 2, 'the two large bodies went to the thread');
  });

  it('is written here when the thread dies with it', async () => {
    const dying = new JsonThread({ workerUrl: DYING_JSON_WORKER_URL });
    try {
      const value = history(100, 4000);
      const body = upstreamBody(value, dying);
      assert.ok(body instanceof Promise);
      assert.equal(await text(body), JSON.stringify(value));
    } finally {
      await dying.close();
    }
  });

  it('that JSON.stringify refuses is refused as it was, here', async () => {
    const cycle: Record<string, unknown> = { big: 'x'.repeat(OFF_THREAD_BYTES) };
    cycle.self = cycle;
    assert.throws(() => upstreamBody(cycle, thread), TypeError);
  });
});
