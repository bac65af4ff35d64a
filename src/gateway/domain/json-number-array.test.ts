import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonNumberArray } from './json-number-array.ts';

function read(text: string): JsonNumberArray | undefined {
  return JsonNumberArray.read(Buffer.from(text), 0);
}

function elementsText(vector: JsonNumberArray): string {
  return Buffer.from(vector.elements).toString('latin1');
}

/** JSON whitespace of every kind, or none. */
const space = fc.constantFrom('', '', ' ', '\n', '\t', '\r\n  ', '  ');

/** JSON number texts within the bounds (below 10^38): shortest forms, exponents, long digit strings, -0. */
const boundedNumber = fc.oneof(
  fc.double({ noNaN: true, min: -1e37, max: 1e37 }).map((x) => JSON.stringify(x)),
  fc.float({ noNaN: true, min: Math.fround(-1e37), max: Math.fround(1e37) }).map((x) => String(x)),
  fc
    .tuple(fc.double({ noNaN: true, min: -1e37, max: 1e37 }), fc.nat(20))
    .map(([x, digits]) => x.toExponential(digits)),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((x) => x.toFixed(12)),
  fc.constantFrom('-0', '0', '-0.0', '0e0', '-0E+00', '1E-9999', '5e-324', '9.999e37', '0.5e38'),
  fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(/^(0|[1-9][0-9]{0,20})$/),
      fc.option(fc.stringMatching(/^[0-9]{1,60}$/), { nil: undefined }),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 16 })),
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

/** An array of such numbers as a server might space it. */
const boundedArray = fc
  .tuple(fc.array(fc.tuple(space, boundedNumber, space), { minLength: 1, maxLength: 50 }), space)
  .map(([items, last]) => `[${items.map(([before, n, after]) => `${before}${n}${after}`).join(',')}${last}]`);

describe('JsonNumberArray.read', () => {
  it('keeps any array of JSON numbers below 10^38 as its bytes: the same numbers, counted, as float32 on demand', () => {
    fc.assert(
      fc.property(boundedArray, (text) => {
        const vector = read(text);
        assert.ok(vector !== undefined, text);
        const numbers = JSON.parse(text) as number[];
        assert.equal(vector.length, numbers.length);
        assert.equal(elementsText(vector), text.slice(1, -1), 'the bytes as they came');
        // What a client reads from the bytes is what JSON.parse reads from the upstream's text.
        assert.deepEqual(JSON.parse(`[${elementsText(vector)}]`), numbers);
        assert.deepEqual(vector.toFloat32Array(), Float32Array.from(numbers));
        for (const value of vector.toFloat32Array()) assert.ok(Number.isFinite(value), text);
      }),
      { numRuns: 5_000 },
    );
  });

  it('accepts only what JSON.parse reads as a non-empty array of finite numbers below 10^38 (random and mutated bytes)', () => {
    const piece = fc.constantFrom(
      ...'0123456789-+.eE, \n\t\r'.split(''),
      ']',
      '[',
      '"',
      '}',
      '{',
      ':',
      'x',
      'NaN',
      'Infinity',
      'null',
      'true',
      '\\',
      '\u00e9',
      '1e999',
      '9e38',
      '01',
    );
    const randomPieces = fc.array(piece, { maxLength: 30 }).map((pieces) => `[${pieces.join('')}`);
    // A valid array with a few bytes replaced, inserted or cut: most of them near the grammar's edges.
    const mutated = fc
      .tuple(
        boundedArray,
        fc.array(fc.tuple(fc.nat(), piece, fc.constantFrom('replace', 'insert', 'cut')), {
          minLength: 1,
          maxLength: 3,
        }),
      )
      .map(([text, edits]) =>
        edits.reduce((out, [at, with_, how]) => {
          const i = 1 + (at % Math.max(1, out.length - 1));
          if (how === 'cut') return out.slice(0, i);
          return out.slice(0, i) + with_ + out.slice(how === 'replace' ? i + 1 : i);
        }, text),
      );
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(randomPieces, mutated), (text) => {
        const vector = read(text);
        if (vector === undefined) return;
        accepted++;
        const end = vector.elements.length + 2;
        const array = JSON.parse(text.slice(0, end)) as unknown;
        assert.ok(Array.isArray(array) && array.length === vector.length && array.length > 0, text);
        for (const value of array) assert.ok(typeof value === 'number' && Math.abs(value) < 1e38, text);
        assert.match(elementsText(vector), /^[-+.eE0-9,\s]+$/);
      }),
      { numRuns: 20_000 },
    );
    // The property means something only if many inputs were accepted.
    assert.ok(accepted > 500, `${accepted} accepted`);
  });

  it('refuses what is not an array of numbers, and numbers that could mean infinity', () => {
    for (const text of [
      '[]',
      '[ ]',
      '[1,]',
      '[,1]',
      '[1 2]',
      '[1,,2]',
      '[01]',
      '[1.]',
      '[.5]',
      '[+1]',
      '[-]',
      '[1e]',
      '[1e+]',
      '[--1]',
      '[1-2]',
      '[0x10]',
      '[NaN]',
      '[Infinity]',
      '[-Infinity]',
      '[1e999]',
      '[1e39]',
      '[10e37]',
      '[1e00039]', // exponent digits past the bound
      '[1e99999]',
      `[1${'0'.repeat(38)}]`, // 10^38
      '[1,"2"]',
      '[1,[2]]',
      '[[1]]',
      '[1,{}]',
      '[null]',
      '[true]',
      '[1\u00a0]',
      '[1',
      '[1,2',
      '1]',
      '',
    ])
      assert.equal(read(text), undefined, JSON.stringify(text));
  });

  it('ends at the first `]`: what follows is not its to judge, and is never part of it', () => {
    const vector = read('[1, 2]}],"evil":[3]');
    assert.ok(vector !== undefined);
    assert.equal(elementsText(vector), '1, 2');
    assert.equal(vector.length, 2);
    assert.equal(
      JsonNumberArray.read(Buffer.from('{"e":[ 1 ]}'), 5)?.length,
      1,
      'read where the array starts',
    );
  });

  it('reads a multi-megabyte array in linear time, and refuses a huge number without reading it as one', () => {
    const many = `[${'-0.0123456789012345,'.repeat(200_000)}1]`; // 4 MB
    let started = performance.now();
    assert.equal(read(many)?.length, 200_001);
    const manyMs = performance.now() - started;
    const longFraction = `[0.${'7'.repeat(4_000_000)}]`;
    assert.equal(read(longFraction)?.length, 1);
    started = performance.now();
    assert.equal(read(`[${'9'.repeat(4_000_000)}]`), undefined);
    assert.equal(read(`[1${'0'.repeat(4_000_000)}e-9999]`), undefined);
    // Generous bounds for a shared, loaded machine: a backtracking or quadratic reader takes minutes.
    assert.ok(manyMs < 2_000, `${manyMs} ms`);
    assert.ok(performance.now() - started < 2_000);
  });
});
