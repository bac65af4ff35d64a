import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { liftEmbeddingArrays, parseWithLiftedEmbeddings } from './embedding-arrays.ts';

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
      // Below 10^38, JsonNumberArray's bound (past it, the whole-body parse reads the vector).
      fc.array(fc.double({ noNaN: true, min: -1e37, max: 1e37 }), { minLength: 1, maxLength: 40 }),
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

/** What a client reads from a parsed body: each kept vector's bytes read as JSON. */
function numbersRead(parsed: unknown): unknown {
  const body = parsed as { data: { embedding: unknown }[] };
  for (const item of body.data) {
    const vector = item.embedding;
    assert.ok(vector instanceof JsonNumberArray, 'each vector is kept as its bytes');
    const numbers = JSON.parse(`[${Buffer.from(vector.elements).toString('latin1')}]`) as number[];
    assert.equal(vector.length, numbers.length);
    item.embedding = numbers;
  }
  return body;
}

const bytes = (text: string) => Buffer.from(text);

describe('parseWithLiftedEmbeddings', () => {
  it('means what JSON.parse means, each vector the bytes of its numbers (exponents, negatives, whitespace, nested lists, several items)', () => {
    fc.assert(
      fc.property(body, (text) => {
        const parsed = parseWithLiftedEmbeddings(bytes(text));
        assert.ok(parsed !== undefined, text);
        assert.deepEqual(numbersRead(parsed), JSON.parse(text));
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
            const parsed = parseWithLiftedEmbeddings(bytes(broken));
            if (!valid) assert.equal(parsed, undefined, broken);
            else if (parsed !== undefined) assert.deepEqual(numbersRead(parsed), JSON.parse(broken));
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
      '{"data":[{"index":0,"embedding":[1e39]}]}', // past 10^38
      '{"data":[{"index":0,"embedding":[NaN]}]}',
      '{"data":[{"index":0,"embedding":[1,2]]}]}', // an array closed twice
      '{"data":[{"index":0,"embedding":[1,2}]}', // never closed
      '{"data":[{"index":0,"embedding":null}]}',
      '{"data":[{"index":0,"embedding":{"0":1}}]}',
      '{"data":[{"index":0}]}',
      '[{"embedding":[1]}]',
    ];
    for (const text of cases) assert.equal(parseWithLiftedEmbeddings(bytes(text)), undefined, text);
  });

  it('reads several items in order and leaves other arrays alone', () => {
    const lifted = liftEmbeddingArrays(
      bytes(
        '{"data":[{"embedding":[1.5,-2e-3]},{"x":[[1,2],[3]],"embedding":[ 3 , 4E+2 ]}],"model":"m\u00e9","other":[{"embedding":[9]}]}',
      ),
    );
    assert.ok(lifted !== undefined);
    assert.deepEqual(
      lifted.vectors.map((vector) => [Buffer.from(vector.elements).toString('latin1'), vector.length]),
      [
        ['1.5,-2e-3', 2],
        [' 3 , 4E+2 ', 2],
      ],
    );
    assert.equal(
      lifted.rest,
      '{"data":[{"embedding":null},{"x":[[1,2],[3]],"embedding":null}],"model":"m\u00e9","other":[{"embedding":[9]}]}',
    );
  });
});
