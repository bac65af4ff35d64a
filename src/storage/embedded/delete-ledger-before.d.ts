import type { DatabaseSync } from 'node:sqlite';

/** Requests deleted per call at most. */
export const ROWS_PER_DELETE: number;

/** A rollup delete and its one parameter: the start of the first bucket kept. */
export interface RollupDelete {
  sql: string;
  before: number;
}

/** Deletes the oldest ROWS_PER_DELETE requests before `cutoff` and their attempts; how many requests. */
export function deleteOldestRequests(db: DatabaseSync, cutoff: number): number;

/** Deletes the rollup buckets wholly before the cutoff. */
export function deleteRollupBuckets(db: DatabaseSync, rollups: readonly RollupDelete[]): void;
