import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SESSION_KEY_CHARS, readSessionKey } from './session-key.ts';

describe('readSessionKey', () => {
  const all = { 'x-session-id': 'header', 'x-claude-code-session-id': 'claude' };
  const body = { userId: 'user', promptCacheKey: 'cache' };

  it('takes x-session-id, else x-claude-code-session-id, else metadata.user_id, else prompt_cache_key', () => {
    assert.equal(readSessionKey(all, body), 'header');
    assert.equal(readSessionKey({ 'x-claude-code-session-id': 'claude' }, body), 'claude');
    assert.equal(readSessionKey({}, body), 'user');
    assert.equal(readSessionKey({}, { promptCacheKey: 'cache' }), 'cache');
    assert.equal(readSessionKey({}), undefined);
  });

  it('skips empty and non-string values, takes the first of a repeated header, cuts long keys', () => {
    assert.equal(readSessionKey({ 'x-session-id': '' }, { userId: 42, promptCacheKey: 'cache' }), 'cache');
    assert.equal(readSessionKey({ 'x-session-id': ['one', 'two'] }), 'one');
    assert.equal(readSessionKey({}, { userId: null, promptCacheKey: { nested: true } }), undefined);
    assert.equal(readSessionKey({ 'x-session-id': 'k'.repeat(10_000) })?.length, MAX_SESSION_KEY_CHARS);
  });
});
