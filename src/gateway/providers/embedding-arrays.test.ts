import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonNumberArray } from '../domain/json-number-array.ts';
import { type EmbeddingPlace, liftEmbeddingArrays, parseWithLiftedEmbeddings } from './embedding-arrays.ts';
import { GEMINI_EMBEDDING_PLACE } from './gemini/gemini-embeddings.ts';
import { OPENAI_EMBEDDING_PLACE } from './openai/openai-embeddings.ts';

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
/** An answer in the place's shape: OpenAI's list object, or Gemini's bare list. */
const bodyAt = (place: EmbeddingPlace) =>
  fc
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
      const list = items.map((vector, index) => ({ object: 'embedding', index, [place.vector]: vector }));
      const value = {
        object: 'list',
        [place.list]: list,
        model: 'm',
        usage: { prompt_tokens: 3 },
        extra,
        nested,
      };
      return writeJson(value, space);
    });

/** What a client reads from a parsed body: each kept vector's bytes read as JSON. */
function numbersRead(parsed: unknown, place: EmbeddingPlace): unknown {
  const body = parsed as Record<string, Record<string, unknown>[]>;
  for (const item of body[place.list] ?? []) {
    const vector = item[place.vector];
    assert.ok(vector instanceof JsonNumberArray, 'each vector is kept as its bytes');
    const numbers = JSON.parse(`[${Buffer.from(vector.elements).toString('latin1')}]`) as number[];
    assert.equal(vector.length, numbers.length);
    item[place.vector] = numbers;
  }
  return body;
}

const bytes = (text: string) => Buffer.from(text);

/** The key with its last letter written as a \u escape: the same key to JSON.parse. */
function escaped(key: string): string {
  return `${key.slice(0, -1)}\\u00${key.charCodeAt(key.length - 1).toString(16)}`;
}

for (const [vendor, place] of [
  ['OpenAI', OPENAI_EMBEDDING_PLACE],
  ['Gemini', GEMINI_EMBEDDING_PLACE],
] as const) {
  const body = bodyAt(place);
  const { list, vector } = place;

  describe(`parseWithLiftedEmbeddings, ${vendor}'s ${list}[i].${vector}`, () => {
    it('means what JSON.parse means, each vector the bytes of its numbers (exponents, negatives, whitespace, nested lists, several items)', () => {
      fc.assert(
        fc.property(body, (text) => {
          const parsed = parseWithLiftedEmbeddings(bytes(text), place);
          assert.ok(parsed !== undefined, text);
          assert.deepEqual(numbersRead(parsed, place), JSON.parse(text));
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
              const parsed = parseWithLiftedEmbeddings(bytes(broken), place);
              if (!valid) assert.equal(parsed, undefined, broken);
              else if (parsed !== undefined) assert.deepEqual(numbersRead(parsed, place), JSON.parse(broken));
            }
          },
        ),
        { numRuns: 1_000 },
      );
    });

    it('steps aside for every shape it does not read, leaving them to the whole-body parse', () => {
      const cases = [
        `{"${list}":[{"index":0,"${vector}":"AAAAAA=="}]}`, // base64
        `{"${list}":[{"index":0,"${escaped(vector)}":[1,2]}]}`, // escaped key
        `{"${escaped(list)}":[{"index":0,"${vector}":[1,2]}]}`,
        `{"${list}":[{"index":0,"${vector}":[1],"${vector}":[2]}]}`, // repeated key
        `{"${list}":[{"${vector}":[1]}],"${list}":[{"${vector}":[2]}]}`,
        `{"${list}":[{"index":0,"${vector}":[]}]}`, // empty
        `{"${list}":[{"index":0,"${vector}":[1,"2"]}]}`, // a string among the numbers
        `{"${list}":[{"index":0,"${vector}":[1,[2]]}]}`, // nested
        `{"${list}":[{"index":0,"${vector}":[1e39]}]}`, // past 10^38
        `{"${list}":[{"index":0,"${vector}":[NaN]}]}`,
        `{"${list}":[{"index":0,"${vector}":[1,2]]}]}`, // an array closed twice
        `{"${list}":[{"index":0,"${vector}":[1,2}]}`, // never closed
        `{"${list}":[{"index":0,"${vector}":null}]}`,
        `{"${list}":[{"index":0,"${vector}":{"0":1}}]}`,
        `{"${list}":[{"index":0}]}`,
        `{"${list}":{"${vector}":[1]}}`,
        `[{"${vector}":[1]}]`,
      ];
      for (const text of cases) assert.equal(parseWithLiftedEmbeddings(bytes(text), place), undefined, text);
    });
  });
}

describe('liftEmbeddingArrays', () => {
  it('reads several items in order and leaves other arrays alone', () => {
    const lifted = liftEmbeddingArrays(
      bytes(
        '{"data":[{"embedding":[1.5,-2e-3]},{"x":[[1,2],[3]],"embedding":[ 3 , 4E+2 ]}],"model":"m\u00e9","other":[{"embedding":[9]}]}',
      ),
      OPENAI_EMBEDDING_PLACE,
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
