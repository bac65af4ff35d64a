/** Time sources, injected so domain code and tests never read the real clock directly. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** A monotonic reading in milliseconds, for durations. */
  monotonic(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};

/** Durations are reported to the microsecond; more digits would only be noise. */
export function roundMs(value: number): number {
  return Math.round(value * 1000) / 1000;
}
