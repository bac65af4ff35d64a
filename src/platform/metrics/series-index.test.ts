import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OVERFLOW, SeriesIndex } from './series-index.ts';

const index = (labels: number, max = 100) =>
  new SeriesIndex<{ values: readonly string[]; n: number }>(labels, max, (values) => ({
    values: [...values],
    n: 0,
  }));

describe('SeriesIndex', () => {
  it('finds the same series for the same values, and a new one for any other', () => {
    const series = index(3);
    const first = series.series(['a', 'b', 'c']);
    assert.equal(series.series(['a', 'b', 'c']), first);
    assert.notEqual(series.series(['a', 'b', 'd']), first);
    assert.notEqual(series.series(['a', 'x', 'c']), first);
    assert.notEqual(series.series(['', 'b', 'c']), first);
    assert.equal(series.size, 4);
    assert.deepEqual(
      series.values().map((s) => s.values.join('/')),
      ['a/b/c', 'a/b/d', 'a/x/c', '/b/c'],
    );
  });

  it('keeps apart values that a joined key would run together', () => {
    const series = index(2);
    assert.notEqual(series.series(['a\u001fb', 'c']), series.series(['a', 'b\u001fc']));
    assert.equal(series.size, 2);
  });

  it('has one series when the family has no labels', () => {
    const series = index(0);
    assert.equal(series.series([]), series.series([]));
    assert.equal(series.size, 1);
  });

  it('past the cap, sends every new label set to one series labelled other, and known ones to their own', () => {
    const series = index(2, 3);
    const known = series.series(['a', '1']);
    series.series(['b', '2']);
    series.series(['c', '3']);
    const overflow = series.series(['d', '4']);
    assert.deepEqual(overflow.values, [OVERFLOW, OVERFLOW]);
    assert.equal(series.series(['e', '5']), overflow);
    assert.equal(series.series(['a', '9']), overflow, 'a new value under a known first label');
    assert.equal(series.series(['a', '1']), known);
    assert.equal(series.series([OVERFLOW, OVERFLOW]), overflow);
    assert.equal(series.size, 4);
  });

  it('past the cap, counts in the series already labelled other rather than a second one', () => {
    const series = index(1, 2);
    const other = series.series([OVERFLOW]);
    series.series(['a']);
    assert.equal(series.series(['b']), other);
    assert.equal(series.size, 2);
  });
});
