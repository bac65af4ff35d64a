import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latencyPercentiles } from './latency-percentiles.ts';

const binOf = (ms: number) => Math.floor(Math.log1p(ms) * 8);

/** The histogram the rollup would hold for these latencies. */
function histogram(latencies: readonly number[]): { bin: number; requests: number }[] {
  const counts = new Map<number, number>();
  for (const ms of latencies) counts.set(binOf(ms), (counts.get(binOf(ms)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b).map(([bin, requests]) => ({ bin, requests }));
}

function exact(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
}

describe('latencyPercentiles', () => {
  it('has no percentiles without requests', () => {
    assert.deepEqual(latencyPercentiles([]), { requests: 0, p50Ms: null, p95Ms: null, p99Ms: null });
  });

  it('lands within one bin (about 13%) of the exact percentile', () => {
    const cases = [
      Array.from({ length: 1000 }, (_, i) => i + 1),
      Array.from({ length: 500 }, (_, i) => 20 + ((i * 7919) % 480)),
      Array.from({ length: 2000 }, (_, i) => Math.exp((i % 97) / 10)),
    ];
    for (const latencies of cases) {
      const sorted = [...latencies].sort((a, b) => a - b);
      const result = latencyPercentiles(histogram(latencies));
      assert.equal(result.requests, latencies.length);
      for (const [q, value] of [
        [0.5, result.p50Ms],
        [0.95, result.p95Ms],
        [0.99, result.p99Ms],
      ] as const) {
        const truth = exact(sorted, q);
        assert.ok(
          value !== null && Math.abs(value - truth) <= truth * 0.14 + 0.1,
          `p${q * 100}: ${value} vs ${truth}`,
        );
      }
    }
  });

  it('orders p50 <= p95 <= p99 inside one bin', () => {
    const result = latencyPercentiles([{ bin: binOf(100), requests: 10 }]);
    assert.ok(result.p50Ms !== null && result.p95Ms !== null && result.p99Ms !== null);
    assert.ok(result.p50Ms <= result.p95Ms && result.p95Ms <= result.p99Ms);
    assert.ok(result.p50Ms >= 90 && result.p99Ms <= 115);
  });
});
