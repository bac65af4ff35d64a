import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashToken, issueToken, isTokenShaped } from './newsletter-tokens.ts';

describe('newsletter tokens', () => {
  it('issues 43-character base64url tokens, all different', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => issueToken().token));
    assert.equal(tokens.size, 1000);
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  });

  it('stores the SHA-256 of the token, never the token', () => {
    const { token, hash } = issueToken();
    assert.notEqual(hash, token);
    assert.equal(hash, createHash('sha256').update(token).digest('base64url'));
    assert.equal(hashToken(token), hash, 'deterministic, so a token can be looked up by its hash');
    // Change the last character to a different one (a fixed replacement would equal it 1 time in 64).
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    assert.notEqual(hashToken(altered), hash);
  });

  it('recognises the token shape and nothing else', () => {
    assert.equal(isTokenShaped(issueToken().token), true);
    for (const value of [
      undefined,
      42,
      ['x'.repeat(43)],
      '',
      'x'.repeat(42),
      'x'.repeat(44),
      `${'x'.repeat(42)}=`,
      `${'x'.repeat(42)}/`,
      `${'x'.repeat(42)}\n`,
      `${'x'.repeat(41)}%41`,
    ]) {
      assert.equal(isTokenShaped(value), false, JSON.stringify(value));
    }
  });
});
