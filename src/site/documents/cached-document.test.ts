import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ifNoneMatchMatches, prepareDocument, prepareJsonDocument } from './cached-document.ts';

describe('prepareDocument', () => {
  it('tags the document with a strong ETag derived from its exact bytes', () => {
    const document = prepareDocument('hello', 'text/plain');
    const expected = createHash('sha256').update('hello').digest('base64url');
    assert.equal(document.etag, `"${expected}"`);
    assert.notEqual(prepareDocument('hello!', 'text/plain').etag, document.etag);
    assert.equal(prepareJsonDocument({ a: 1 }).body.toString(), '{\n  "a": 1\n}\n');
  });
});

describe('ifNoneMatchMatches', () => {
  const etag = '"abc"';
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x","y"', false],
    ['*', true],
    ['abc', false],
    ['"abcd"', false],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} ${expected ? 'matches' : 'does not match'}`, () => {
      assert.equal(ifNoneMatchMatches(header, etag), expected);
    });
  }
});
