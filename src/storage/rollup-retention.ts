/**
 * Retention of the hourly rollups (migration 006): when ledger rows before a cutoff go, so do the
 * rollup hours that lie wholly before it. The hour the cutoff falls in keeps its sums, which
 * still count its deleted rows: at most one hour of a retention window in days.
 */
export const ROLLUP_DELETES = [
  'DELETE FROM usage_hourly WHERE hour < ?',
  'DELETE FROM usage_latency_hourly WHERE hour < ?',
  'DELETE FROM limit_refusals_hourly WHERE hour < ?',
] as const;

/** The start of the hour `cutoff` falls in: rollup hours before it end at or before the cutoff. */
export function wholeHoursBefore(cutoff: number): number {
  return Math.floor(cutoff / 3_600_000) * 3_600_000;
}
