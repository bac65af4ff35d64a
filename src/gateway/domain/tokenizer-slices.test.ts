import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { MAX_RUN_CHARS, MAX_SLICE_CHARS, sliceForTokenizer } from './tokenizer-slices.ts';

/** Text made of the pieces prose, code and lists are made of, with no run long enough to be cut. */
const piece = fc.oneof(
  fc.constantFrom('the', 'Gateway', "don't", 'naïve', '東京', '🙂', '42', '3.14', 'x_y', 'über', 'HTTP/2'),
  fc.constantFrom(
    ' ',
    '  ',
    '\n',
    '\n\n',
    '\t',
    ' \n',
    '\r\n',
    ', ',
    '. ',
    '!',
    '...',
    '—',
    '(',
    ')',
    '"',
    '/',
  ),
  fc.stringMatching(/^[a-zA-Z]{1,12}$/),
);
const prose = fc.array(piece, { maxLength: 400 }).map((pieces) => pieces.join(''));

describe('sliceForTokenizer', () => {
  it('covers the text exactly, in slices no longer than the bounds', () => {
    fc.assert(
      fc.property(
        fc.oneof(prose, fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 500 })),
        (text) => {
          const slices = [...sliceForTokenizer(text)];
          assert.equal(slices.map((slice) => slice.text).join(''), text);
          for (const slice of slices) assert.ok(slice.text.length <= MAX_SLICE_CHARS + MAX_RUN_CHARS);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts exactly what the whole text counts when no slice is cut mid-piece (property)', () => {
    fc.assert(
      fc.property(prose, (text) => {
        const slices = [...sliceForTokenizer(text)];
        fc.pre(slices.every((slice) => !slice.cut));
        const sliced = slices.reduce((sum, slice) => sum + countTokens(slice.text), 0);
        assert.equal(sliced, countTokens(text), JSON.stringify(text));
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a run without natural boundaries every MAX_RUN_CHARS, never inside a surrogate pair', () => {
    const slices = [...sliceForTokenizer('🙂'.repeat(100))];
    assert.ok(slices.length > 1);
    for (const slice of slices) {
      assert.ok(slice.text.length <= MAX_RUN_CHARS + 1);
      assert.ok(!/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(slice.text), 'no lone surrogate at an edge');
    }
  });

  it('groups long prose into few slices, cut only at natural boundaries', () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(2000);
    const slices = [...sliceForTokenizer(text)];
    assert.ok(slices.length <= Math.ceil(text.length / (MAX_SLICE_CHARS / 2)));
    assert.ok(slices.every((slice) => !slice.cut));
  });
});
