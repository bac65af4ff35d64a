import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessResponseCacheStore } from './response-cache-store.ts';

describe('InProcessResponseCacheStore', () => {
  it('keeps entries within its bytes, dropping the least recently used first', async () => {
    const store = new InProcessResponseCacheStore(30, () => 0);
    await store.set('a', 'x'.repeat(9), 60_000); // 10 bytes with its key
    await store.set('b', 'x'.repeat(9), 60_000);
    await store.set('c', 'x'.repeat(9), 60_000);
    assert.equal(store.bytes, 30);
    assert.ok((await store.get('a')) !== undefined, 'a read: now the most recently used');
    await store.set('d', 'x'.repeat(9), 60_000);
    assert.equal(await store.get('b'), undefined, 'b, the least recently used, went');
    assert.ok((await store.get('a')) !== undefined);
    assert.ok((await store.get('c')) !== undefined);
    assert.ok((await store.get('d')) !== undefined);
    assert.equal(store.bytes, 30);
  });

  it('keeps nothing larger than the whole bound, and replaces an entry under the same key', async () => {
    const store = new InProcessResponseCacheStore(20, () => 0);
    await store.set('a', 'small', 60_000);
    await store.set('big', 'x'.repeat(40), 60_000);
    assert.equal(await store.get('big'), undefined);
    assert.equal(await store.get('a'), 'small');
    await store.set('a', 'other', 60_000);
    assert.equal(await store.get('a'), 'other');
    assert.equal(store.bytes, 6);
  });

  it('an entry expires after its TTL on the given clock', async () => {
    let now = 1_000;
    const store = new InProcessResponseCacheStore(1024, () => now);
    await store.set('a', 'value', 500);
    now = 1_499;
    assert.equal(await store.get('a'), 'value');
    now = 1_500;
    assert.equal(await store.get('a'), undefined);
    assert.equal(store.bytes, 0);
  });
});
