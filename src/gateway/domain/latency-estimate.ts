/**
 * A deployment's recent time to first byte, for the latency strategy (CONTRACT 5.6): a moving
 * average that forgets with time, and a score that drifts toward zero while the deployment is not
 * tried, so a slow deployment is tried again now and then and its recovery is noticed. Pure: the
 * time comes in as an argument.
 */
export interface LatencyEstimate {
  /** The average in ms; undefined until the first sample. */
  ms: number | undefined;
  /** When the last sample came (ms, any monotonic clock). */
  sampledAt: number;
  /** When it was last sampled or picked: the score's drift counts from here. */
  touchedAt: number;
}

/** A sample's weight is 1 − e^(−gap/DECAY): after a pause the new sample counts almost alone. */
export const LATENCY_DECAY_MS = 1_000;
/** Its least weight, when samples come close together. */
export const LATENCY_MIN_WEIGHT = 0.2;
/**
 * The score falls by e every PROBE_MS since the deployment was last touched: a deployment 20
 * times slower than the best is tried again about 3 s after it was left, by one request (the pick
 * touches it), per instance.
 */
export const LATENCY_PROBE_MS = 1_000;

export function newLatencyEstimate(): LatencyEstimate {
  return { ms: undefined, sampledAt: 0, touchedAt: 0 };
}

/** Folds one sample (ms) taken at `now` into the estimate. */
export function addLatencySample(estimate: LatencyEstimate, sampleMs: number, now: number): void {
  if (estimate.ms === undefined) {
    estimate.ms = sampleMs;
  } else {
    const gap = Math.max(0, now - estimate.sampledAt);
    const weight = Math.max(LATENCY_MIN_WEIGHT, 1 - Math.exp(-gap / LATENCY_DECAY_MS));
    estimate.ms += weight * (sampleMs - estimate.ms);
  }
  estimate.sampledAt = now;
  estimate.touchedAt = now;
}

/** The deployment was picked at `now`: its score stops drifting until the next pause. */
export function touchLatencyEstimate(estimate: LatencyEstimate, now: number): void {
  estimate.touchedAt = now;
}

/** What the order compares: the average, drifting toward 0 since last touched; undefined when never measured. */
export function scoreLatency(estimate: LatencyEstimate, now: number): number | undefined {
  if (estimate.ms === undefined) return undefined;
  return estimate.ms * Math.exp(-Math.max(0, now - estimate.touchedAt) / LATENCY_PROBE_MS);
}
