/** Latency samples in milliseconds to the figures the table shows. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
}

export function summarise(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { count: 0, p50: Number.NaN, p99: Number.NaN, mean: Number.NaN };
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sum / sorted.length,
  };
}

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted: Float64Array, q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}
