/**
 * Retention of the rollups (migration 005): when ledger rows before a cutoff go, so do the rollup
 * hours and days that lie wholly before it. The hour and the day the cutoff falls in keep their
 * sums, which still count their deleted rows: at most a day of a retention window in days.
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const ROLLUP_TABLES = [
  { table: 'usage_hourly', column: 'hour', grainMs: HOUR_MS },
  { table: 'usage_latency_hourly', column: 'hour', grainMs: HOUR_MS },
  { table: 'limit_refusals_hourly', column: 'hour', grainMs: HOUR_MS },
  { table: 'usage_daily', column: 'day', grainMs: DAY_MS },
  { table: 'usage_latency_daily', column: 'day', grainMs: DAY_MS },
] as const;

export const ROLLUP_DELETES: readonly { sql: string; grainMs: number; any: string }[] = ROLLUP_TABLES.map(
  ({ table, column, grainMs }) => ({
    sql: `DELETE FROM ${table} WHERE ${column} < ?`,
    grainMs,
    /** Whether the delete would find a bucket: the primary key's first entry, in microseconds. */
    any: `SELECT 1 FROM ${table} WHERE ${column} < ? LIMIT 1`,
  }),
);

/** The start of the hour or day `cutoff` falls in: buckets before it end at or before the cutoff. */
export function wholeBucketsBefore(cutoff: number, grainMs: number): number {
  return Math.floor(cutoff / grainMs) * grainMs;
}
