import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CounterFamily, HistogramFamily, MAX_SERIES_PER_FAMILY } from './metric-families.ts';
import { MetricsRegistry } from './metrics-registry.ts';

describe('metric families', () => {
  it('histograms expose cumulative buckets, +Inf, sum and count in the text format', async () => {
    const registry = new MetricsRegistry();
    const family = registry.add(new HistogramFamily('t_seconds', 'help', ['k'], [1, 5]));
    for (const value of [0.5, 1, 3, 9]) family.series(['a']).observe(value);
    const text = await registry.text();
    assert.match(text, /^t_seconds_bucket\{k="a",le="1"\} 2$/m);
    assert.match(text, /^t_seconds_bucket\{k="a",le="5"\} 3$/m);
    assert.match(text, /^t_seconds_bucket\{k="a",le="\+Inf"\} 4$/m);
    assert.match(text, /^t_seconds_sum\{k="a"\} 13.5$/m);
    assert.match(text, /^t_seconds_count\{k="a"\} 4$/m);
  });

  it('counters keep one series per label set and escape label values', async () => {
    const registry = new MetricsRegistry();
    const family = registry.add(new CounterFamily('t_total', 'help', ['a', 'b']));
    family.series(['x', 'y']).inc();
    family.series(['x', 'y']).inc(2);
    family.series(['x', 'q"uote']).inc();
    const text = await registry.text();
    assert.match(text, /^t_total\{a="x",b="y"\} 3$/m);
    assert.match(text, /^t_total\{a="x",b="q\\"uote"\} 1$/m);
  });

  it('past the cap, new label sets share one series labelled other', () => {
    const family = new CounterFamily('t_total', 'help', ['model']);
    for (let i = 0; i < MAX_SERIES_PER_FAMILY + 10; i++) family.series([`m${i}`]).inc();
    const values = family.get().values;
    assert.equal(values.length, MAX_SERIES_PER_FAMILY + 1);
    assert.equal(values.find((v) => v.labels.model === 'other')?.value, 10);
  });
});
