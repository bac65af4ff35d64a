import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCursor, encodeCursor } from './page-cursor.ts';

describe('page cursor', () => {
  it('round-trips an offset and the listing it belongs to, as URL-safe text', () => {
    const cursor = encodeCursor({ offset: 40, kind: 'policy' });
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(cursor, 'policy'), { offset: 40, kind: 'policy' });
  });

  it('refuses a cursor from another listing', () => {
    const result = decodeCursor(encodeCursor({ offset: 20, kind: 'all' }), 'page');
    assert.ok('error' in result);
    assert.match(result.error, /kind 'all'/);
  });

  it('refuses garbage, tampered and negative cursors', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of [
      '',
      'not a cursor!',
      'e30',
      forged({ o: -1, k: 'all' }),
      forged({ o: 1.5, k: 'all' }),
      forged([1]),
    ]) {
      const result = decodeCursor(text, 'all');
      assert.ok('error' in result, text);
      assert.match(result.error, /cursor is not valid/);
    }
  });
});
