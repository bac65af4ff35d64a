import { LATENCY_BINS_PER_E } from '../../storage/ledger-insights.ts';

export interface Percentiles {
  requests: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

/** Lower edge in ms of latency bin `bin`: the rollup files a request under floor(ln(1 + ms) * 8). */
function binStart(bin: number): number {
  return Math.expm1(bin / LATENCY_BINS_PER_E);
}

/**
 * Percentiles from a latency histogram, as Prometheus' histogram_quantile does: find the bin that
 * holds the rank and interpolate linearly inside it. Bins are about 13% wide, so an answer is
 * within that of the exact percentile. `bins` must be ordered by bin. Pure.
 */
export function latencyPercentiles(bins: readonly { bin: number; requests: number }[]): Percentiles {
  const requests = bins.reduce((sum, b) => sum + b.requests, 0);
  if (requests === 0) return { requests: 0, p50Ms: null, p95Ms: null, p99Ms: null };
  const at = (q: number): number => {
    const rank = q * requests;
    let below = 0;
    for (const { bin, requests: count } of bins) {
      if (below + count >= rank) {
        const lower = binStart(bin);
        const upper = binStart(bin + 1);
        return Math.round((lower + ((upper - lower) * (rank - below)) / count) * 10) / 10;
      }
      below += count;
    }
    return Math.round(binStart((bins.at(-1)?.bin ?? 0) + 1) * 10) / 10;
  };
  return { requests, p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) };
}
