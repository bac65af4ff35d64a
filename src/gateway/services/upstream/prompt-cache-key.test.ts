import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { promptCacheKeyFor } from './prompt-cache-key.ts';

const expected = (app: string, session: string) =>
  `gw-${createHash('sha256').update(`${app}\u0000${session}`).digest('hex').slice(0, 40)}`;

test('the key is the hash of app and session, the same when remembered as when first made', () => {
  for (let round = 0; round < 2; round++) {
    assert.equal(promptCacheKeyFor('app-a', 'session-1'), expected('app-a', 'session-1'));
    assert.equal(promptCacheKeyFor('app-a', undefined), expected('app-a', ''));
  }
});

test('two apps, or two sessions, never share a key', () => {
  assert.notEqual(promptCacheKeyFor('app-a', 's'), promptCacheKeyFor('app-b', 's'));
  assert.notEqual(promptCacheKeyFor('app-a', 's1'), promptCacheKeyFor('app-a', 's2'));
  // The separator keeps a name's end from passing for the session's start.
  assert.notEqual(promptCacheKeyFor('ab', 'c'), promptCacheKeyFor('a', 'bc'));
});

test('more sessions than are remembered still get their own key each', () => {
  const keys = new Set<string>();
  for (let n = 0; n < 5000; n++) keys.add(promptCacheKeyFor('app-a', `s${n}`));
  assert.equal(keys.size, 5000);
  assert.equal(promptCacheKeyFor('app-a', 's0'), expected('app-a', 's0'));
});
