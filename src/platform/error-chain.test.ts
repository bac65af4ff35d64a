import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DependencyUnavailableError } from './dependency-unavailable.ts';
import { messageWithCauses } from './error-chain.ts';

describe('messageWithCauses', () => {
  it("follows the causes: what the operator needs of a dependency's failure", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.equal(
      messageWithCauses(new DependencyUnavailableError('the database', refused)),
      'the database is unavailable; try again in a few seconds: connect ECONNREFUSED 127.0.0.1:5432',
    );
  });

  it('a plain error, a thrown non-error, a cause that is not an error, and a cycle', () => {
    assert.equal(messageWithCauses(new Error('plain')), 'plain');
    assert.equal(messageWithCauses('a string'), 'a string');
    assert.equal(messageWithCauses(new Error('outer', { cause: 42 })), 'outer: 42');
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    assert.equal(messageWithCauses(a), 'a: b');
  });
});
