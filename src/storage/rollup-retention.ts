/**
 * Retention of the rollups (migration 005): when ledger rows before a cutoff go, so do the rollup
 * hours and days that lie wholly before it. The hour and the day the cutoff falls in keep their
 * sums, which still count their deleted rows: at most a day of a retention window in days.
 */
export const ROLLUP_DELETES: readonly { sql: string; grainMs: number }[] = [
  { sql: 'DELETE FROM usage_hourly WHERE hour < ?', grainMs: 3_600_000 },
  { sql: 'DELETE FROM usage_latency_hourly WHERE hour < ?', grainMs: 3_600_000 },
  { sql: 'DELETE FROM limit_refusals_hourly WHERE hour < ?', grainMs: 3_600_000 },
  { sql: 'DELETE FROM usage_daily WHERE day < ?', grainMs: 86_400_000 },
  { sql: 'DELETE FROM usage_latency_daily WHERE day < ?', grainMs: 86_400_000 },
];

/** The start of the hour or day `cutoff` falls in: buckets before it end at or before the cutoff. */
export function wholeBucketsBefore(cutoff: number, grainMs: number): number {
  return Math.floor(cutoff / grainMs) * grainMs;
}
