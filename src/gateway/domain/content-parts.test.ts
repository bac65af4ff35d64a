import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  base64DecodedBytes,
  budgetForEffort,
  effortForBudget,
  isPassableUrl,
  MediaTally,
  readDataUrl,
} from './content-parts.ts';

describe('content parts', () => {
  it('sizes base64 without decoding it, and refuses what is not base64', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 100]) {
      const data = Buffer.alloc(bytes, 0xab).toString('base64');
      assert.equal(base64DecodedBytes(data), bytes, data);
      assert.equal(base64DecodedBytes(data.replace(/=+$/, '')), bytes, 'unpadded');
    }
    for (const bad of ['abc=d', 'a', 'ab=c', 'ab cd', 'ab-_', 'abc===', '===='])
      assert.equal(base64DecodedBytes(bad), undefined, bad);
  });

  it('splits a data URL, with parameters before base64', () => {
    assert.deepEqual(readDataUrl('data:image/PNG;base64,AAAA'), { mediaType: 'image/png', data: 'AAAA' });
    assert.deepEqual(readDataUrl('data:application/pdf;name=a.pdf;base64,AAAA'), {
      mediaType: 'application/pdf',
      data: 'AAAA',
    });
    assert.equal(readDataUrl('data:image/png,AAAA'), undefined);
    assert.equal(readDataUrl('https://example.com/a.png'), undefined);
  });

  it('passes only https URLs of bounded length', () => {
    assert.equal(isPassableUrl('https://example.com/a.png'), true);
    assert.equal(isPassableUrl('http://example.com/a.png'), false);
    assert.equal(isPassableUrl(`https://example.com/${'a'.repeat(9000)}`), false);
    assert.equal(isPassableUrl('https://'), false);
  });

  it('maps budgets to efforts and back (CONTRACT 5.2, 5.9)', () => {
    assert.deepEqual([1024, 4095, 4096, 16383, 16384, 31999].map(effortForBudget), [
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
    ]);
    assert.deepEqual((['low', 'medium', 'high'] as const).map(budgetForEffort), [2048, 8192, 24576]);
  });

  it('tallies a request: the 101st item, or the byte past 32 MiB, is refused', () => {
    const many = new MediaTally();
    for (let i = 0; i < 100; i++) assert.equal(many.add(10), undefined);
    assert.match(many.add(10) ?? '', /at most 100 images and files/);
    const big = new MediaTally();
    assert.equal(big.add(32 * 1024 * 1024), undefined);
    assert.match(big.add(1) ?? '', /at most 32 MiB/);
  });
});
