import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Float32Read, readFloat32 } from '../http/float32-number.ts';
import { liftEmbeddingArrays, parseWithLiftedEmbeddings } from './embedding-arrays.ts';

function readAll(text: string): Float32Read {
  const out: Float32Read = { end: 0, value: 0 };
  readFloat32(text, 0, out);
  return out;
}

/** JSON number texts of every kind: shortest forms, exponents, long digit strings, float32s in full. */
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => String(x)),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((x) => x.toExponential(fc.sample(fc.nat(20), 1)[0])),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((x) => x.toFixed(12)),
  fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(/^(0|[1-9][0-9]{0,30})$/),
      fc.option(fc.stringMatching(/^[0-9]{1,30}$/), { nil: undefined }),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 420 })),
        {
          nil: undefined,
        },
      ),
    )
    .map(
      ([negative, whole, fraction, exponent]) =>
        `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${
          exponent === undefined ? '' : `${exponent[0]}${exponent[1]}${exponent[2]}`
        }`,
    ),
);

describe('readFloat32', () => {
  it('gives Math.fround(JSON.parse(text)) for every JSON number, and reads all of it', () => {
    fc.assert(
      fc.property(numberText, (text) => {
        const read = readAll(text);
        assert.equal(read.end, text.length, text);
        assert.ok(Object.is(read.value, Math.fround(JSON.parse(text))), `${text}: ${read.value}`);
      }),
      { numRuns: 20_000 },
    );
  });

  it('rounds to the right float32 next to ties between two float32s', () => {
    // Midpoints between neighbouring float32s, a hair either side, printed with 25 digits.
    fc.assert(
      fc.property(
        fc.float({ noNaN: true, noDefaultInfinity: true, min: 0 }),
        fc.integer({ min: -3, max: 3 }),
        (f, nudge) => {
          const bits = new Uint32Array(new Float32Array([f]).buffer)[0] as number;
          const next = new Float32Array(new Uint32Array([bits + 1]).buffer)[0] as number;
          if (!Number.isFinite(next)) return;
          const middle = f + (next - f) / 2 + nudge * Number.EPSILON * f;
          const text = middle.toPrecision(25).replace(/^(\d)/, '$1');
          const read = readAll(text);
          assert.ok(Object.is(read.value, Math.fround(Number(text))), text);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('stops where JSON.parse would refuse the number', () => {
    for (const text of ['-', '+1', '.5', '1.', '1e', '1e+', '-.5', 'NaN', 'Infinity', '--1', '']) {
      assert.equal(readAll(text).end === text.length && text !== '', false, text);
    }
    // A leading zero ends the number: what follows is then no delimiter and the caller refuses it.
    assert.equal(readAll('01').end, 1);
  });
});

interface Item {
  object: string;
  index: number;
  embedding: number[];
}

/** JSON with random whitespace between tokens, as a server might write it. */
function writeJson(value: unknown, space: () => string): string {
  if (Array.isArray(value))
    return `[${space()}${value.map((v) => writeJson(v, space)).join(`${space()},${space()}`)}${space()}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(k)}${space()}:${space()}${writeJson(v, space)}`,
    );
    return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
  }
  return JSON.stringify(value);
}

const jsonExtra = fc.jsonValue({ maxDepth: 3 });
const body = fc
  .record({
    items: fc.array(
      fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 40 }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    extra: jsonExtra,
    nested: fc.array(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 3 }), {
      maxLength: 3,
    }),
    spaces: fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n  '), { minLength: 1, maxLength: 8 }),
  })
  .map(({ items, extra, nested, spaces }) => {
    let n = 0;
    const space = () => spaces[n++ % spaces.length] as string;
    const data: Item[] = items.map((embedding, index) => ({ object: 'embedding', index, embedding }));
    const value = { object: 'list', data, model: 'm', usage: { prompt_tokens: 3 }, extra, nested };
    return writeJson(value, space);
  });

/** What the body means once its vectors are float32. */
function expected(text: string): unknown {
  const parsed = JSON.parse(text) as { data: { embedding: number[] | Float32Array }[] };
  for (const item of parsed.data) item.embedding = Float32Array.from(item.embedding as number[]);
  return parsed;
}

describe('parseWithLiftedEmbeddings', () => {
  it('means what JSON.parse means, with each vector as float32 (exponents, negatives, whitespace, nested lists, several items)', () => {
    fc.assert(
      fc.property(body, (text) => {
        const parsed = parseWithLiftedEmbeddings(text);
        assert.ok(parsed !== undefined, text);
        assert.deepEqual(parsed, expected(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('never accepts a body JSON.parse refuses (cut short or with a byte changed)', () => {
    fc.assert(
      fc.property(
        body,
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '"', 'x', '-', '.', 'e', ' ', '\\'),
        (text, at, byte) => {
          const cut = at % text.length;
          for (const broken of [text.slice(0, cut), text.slice(0, cut) + byte + text.slice(cut + 1)]) {
            let valid = true;
            try {
              JSON.parse(broken);
            } catch {
              valid = false;
            }
            const parsed = parseWithLiftedEmbeddings(broken);
            if (!valid) assert.equal(parsed, undefined, broken);
            else if (parsed !== undefined) assert.deepEqual(parsed, expected(broken));
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('steps aside for every shape it does not read, leaving them to the whole-body parse', () => {
    const cases = [
      '{"data":[{"index":0,"embedding":"AAAAAA=="}]}', // base64
      '{"data":[{"index":0,"embe\\u0064ding":[1,2]}]}', // escaped key
      '{"data":[{"index":0,"embedding":[1],"embedding":[2]}]}', // repeated key
      '{"data":[{"index":0,"embedding":[]}]}', // empty
      '{"data":[{"index":0,"embedding":[1,"2"]}]}', // a string among the numbers
      '{"data":[{"index":0,"embedding":[1,[2]]}]}', // nested
      '{"data":[{"index":0,"embedding":[1e39]}]}', // past float32
      '{"data":[{"index":0,"embedding":null}]}',
      '{"data":[{"index":0,"embedding":{"0":1}}]}',
      '{"data":[{"index":0}]}',
      '[{"embedding":[1]}]',
    ];
    for (const text of cases) assert.equal(parseWithLiftedEmbeddings(text), undefined, text);
  });

  it('reads several items in order and leaves other arrays alone', () => {
    const lifted = liftEmbeddingArrays(
      '{"data":[{"embedding":[1.5,-2e-3]},{"x":[[1,2],[3]],"embedding":[ 3 , 4E+2 ]}],"model":"m","other":[{"embedding":[9]}]}',
    );
    assert.ok(lifted !== undefined);
    assert.deepEqual(lifted.vectors, [Float32Array.from([1.5, -2e-3]), Float32Array.from([3, 400])]);
    assert.equal(
      lifted.rest,
      '{"data":[{"embedding":null},{"x":[[1,2],[3]],"embedding":null}],"model":"m","other":[{"embedding":[9]}]}',
    );
  });
});
