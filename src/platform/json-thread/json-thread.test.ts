import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DYING_JSON_WORKER_URL } from '../../../test/helpers/json-thread-doubles.ts';
import { DependencyUnavailableError } from '../dependency-unavailable.ts';
import { JsonThread, JsonThreadInvalidJson } from './json-thread.ts';
import { parseJsonBody } from './parse-json-body.ts';

/** A request body of about `bytes`, with what JSON escapes and what UTF-8 spends several bytes on. */
function bodyOf(bytes: number): string {
  const words = ['plain', 'ünïcödé', '日本語', 'emoji 🙂', 'quote "x"', 'back\\slash', 'tab\tnew\nline'];
  const parts: string[] = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    const word = words[i % words.length] as string;
    parts.push(word);
    length += Buffer.byteLength(word) + 1;
  }
  return JSON.stringify({
    model: 'm',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: parts.join(' '), n: [1, -0, 1.5e300, null, true] },
    ],
    temperature: 0.25,
  });
}

describe('the JSON thread', () => {
  const thread = new JsonThread();
  after(() => thread.close());

  it('parses bytes as the event loop does: unicode, escapes, a byte-order mark', async () => {
    for (const text of [
      bodyOf(300_000),
      `\uFEFF${bodyOf(1000)}`,
      '[]',
      '"a"',
      '{"a":{"b":[1,{"c":null}]}}',
    ]) {
      const bytes = Buffer.from(text);
      assert.deepEqual(await thread.parse(Buffer.from(bytes)), parseJsonBody(text));
    }
  });

  it('moves the bytes to the thread rather than copying them', async () => {
    const bytes = Buffer.from(bodyOf(300_000));
    const parsing = thread.parse(bytes);
    assert.equal(bytes.buffer.byteLength, 0, 'the buffer is detached here once sent');
    await parsing;
  });

  it('parses a view into a larger buffer (a pooled body) from a copy, leaving the buffer whole', async () => {
    const pool = Buffer.from(`xx${JSON.stringify({ a: 1 })}yy`);
    const view = pool.subarray(2, pool.length - 2);
    assert.deepEqual(await thread.parse(view), { a: 1 });
    assert.equal(pool.toString(), 'xx{"a":1}yy');
  });

  it('refuses what is not JSON, and prototype poisoning, as Fastify does', async () => {
    for (const text of [
      '{"a":',
      'nope',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '',
    ]) {
      await assert.rejects(thread.parse(Buffer.from(text)), JsonThreadInvalidJson, text);
      assert.throws(() => parseJsonBody(text), text);
    }
  });

  it('sends a body nested thousands of levels back to be read here (a structured clone would overflow the stack)', async () => {
    const deep = `{"pad":"${'p'.repeat(1000)}","v":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const value = (await thread.parse(Buffer.from(deep))) as { pad: string; v: unknown };
    assert.equal(value.pad.length, 1000);
    let level = value.v;
    let levels = 0;
    for (; typeof level === 'object' && level !== null; levels++) level = (level as { a: unknown }).a;
    assert.deepEqual([levels, level], [10_000, 1]);
    await assert.rejects(
      thread.parse(Buffer.from(`${'['.repeat(10_000)}${']'.repeat(9_999)}`)),
      JsonThreadInvalidJson,
    );
    // And the thread still answers.
    assert.deepEqual(await thread.parse(Buffer.from('{"ok":1}')), { ok: 1 });
  });

  it('writes the bytes JSON.stringify gives', async () => {
    const sparse: unknown[] = [1];
    sparse[3] = 'x';
    const values = [
      JSON.parse(bodyOf(300_000)),
      { lone: '\uD800 and \uDC00', undef: undefined, nested: { arr: sparse, neg: -0 } },
      [undefined, null, 'a'],
      'a string',
    ];
    for (const value of values) {
      const bytes = await thread.stringify(value);
      assert.equal(bytes.toString('utf8'), JSON.stringify(value));
    }
  });

  it('rejects what it cannot write: a BigInt, a cycle, a function (which cannot be sent)', async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [{ n: 1n }, cycle, { f: () => 1 }]) await assert.rejects(thread.stringify(value));
    // And it still works after.
    assert.equal((await thread.stringify({ ok: true })).toString(), '{"ok":true}');
  });

  it('answers many calls in flight, each with its own value', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, text: 'x'.repeat(i * 1000) }));
    const values = await Promise.all(texts.map((text) => thread.parse(Buffer.from(text))));
    assert.deepEqual(
      values,
      texts.map((text) => JSON.parse(text)),
    );
    assert.equal(thread.pending, 0);
  });
});

describe('an idle JSON thread', () => {
  it('is ended after its idle time, and a later call starts a new one', async () => {
    const thread = new JsonThread({ idleMs: 50 });
    try {
      assert.equal(thread.running, false, 'no thread before the first call');
      assert.deepEqual(await thread.parse(Buffer.from('[1]')), [1]);
      assert.equal(thread.running, true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(thread.running, false, 'ended once idle');
      assert.deepEqual(await thread.parse(Buffer.from('[2]')), [2]);
      assert.equal(thread.running, true);
    } finally {
      await thread.close();
    }
  });

  it('is not ended while calls keep coming within the idle time', async () => {
    const thread = new JsonThread({ idleMs: 150 });
    try {
      for (let i = 0; i < 6; i++) {
        assert.deepEqual(await thread.parse(Buffer.from(`[${i}]`)), [i]);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(thread.running, true);
    } finally {
      await thread.close();
    }
  });
});

describe('a JSON thread that dies', () => {
  it('rejects the calls on it as a dependency unavailable, and starts a new thread for the next', async () => {
    const thread = new JsonThread({ workerUrl: DYING_JSON_WORKER_URL });
    try {
      await assert.rejects(thread.parse(Buffer.from('{"a":1}')), DependencyUnavailableError);
      await assert.rejects(thread.stringify({ a: 1 }), DependencyUnavailableError);
      // A new thread for each call (this one dies too), not a call left waiting on a dead one.
      await assert.rejects(thread.parse(Buffer.from('[1]')), DependencyUnavailableError);
      assert.equal(thread.pending, 0);
    } finally {
      await thread.close();
    }
  });
});
