import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonBody, jsonBodyBytes } from './json-body-bytes.ts';

const history = Array.from({ length: 40 }, (_, n) => ({
  role: n % 2 === 0 ? 'user' : 'tool',
  content: `line ${n}: "quoted" \\ back\nslash, tab\t, é, 漢字, emoji 🙂, lone \ud800 surrogate`,
  tool_call_id: n % 2 === 0 ? undefined : `call_${n}`,
}));

/** Values whose JSON.stringify form has every rule a piecewise writer could get wrong. */
const bodies: Record<string, unknown> = {
  'a long conversation': { model: 'm', messages: history, tools: [{ type: 'function' }], stream: false },
  'undefined, functions and symbols in objects and arrays': {
    messages: Array.from({ length: 20 }, (_, n) => n),
    gone: undefined,
    fn: () => 1,
    sym: Symbol('s'),
    list: [undefined, () => 1, Symbol('t'), null, 1],
  },
  'toJSON, dates, boxed values, class instances and null prototypes': {
    items: Array.from({ length: 20 }, () => ({ at: new Date(0), n: Object(1), s: Object('x') })),
    custom: { toJSON: (key: string) => `custom(${key})` },
    instance: new (class Point {
      x = 1;
    })(),
    bare: Object.assign(Object.create(null), { b: 2, a: [1, { c: undefined }] }),
    '1': 'integer keys first',
    'quoted "key"': true,
  },
  'empty containers': { messages: Array.from({ length: 16 }, () => []), o: {}, a: [] },
  'non-finite numbers': { list: [Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, ...Array(16).fill(0.1)] },
};

describe('jsonBody: the bytes of JSON.stringify, never one large string', () => {
  for (const [name, value] of Object.entries(bodies)) {
    it(`writes ${name} as JSON.stringify does`, () => {
      const expected = Buffer.from(JSON.stringify(value) as string);
      assert.deepEqual(jsonBodyBytes(value), expected);
      const body = jsonBody(value);
      assert.ok(Buffer.isBuffer(body), 'a body of many items goes as bytes');
      assert.deepEqual(body, expected);
    });
  }

  it('gives a small body as the one string', () => {
    const small = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };
    assert.equal(jsonBody(small), JSON.stringify(small));
  });

  it('throws where JSON.stringify throws, and for a body with no JSON form', () => {
    const cyclic: Record<string, unknown> = { messages: Array.from({ length: 20 }, () => ({})) };
    (cyclic.messages as Record<string, unknown>[])[3] = { back: cyclic };
    assert.throws(() => jsonBody(cyclic), TypeError);
    assert.throws(() => jsonBody({ messages: Array(20).fill(1n) }), TypeError);
    assert.throws(() => jsonBody(undefined), TypeError);
  });
});
