export interface BackoffSettings {
  baseMs: number;
  maxMs: number;
}

/**
 * Wait before the next delivery of an outbox entry that has failed `failures` times: exponential
 * (base, 2×base, 4×base, …) up to `maxMs`, with "equal jitter" (half fixed, half random), so
 * entries that failed together during an outage do not all come back in the same instant.
 * `random` is injected so tests are exact.
 */
export function computeOutboxRetryDelay(
  failures: number,
  settings: BackoffSettings,
  random: () => number,
): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
