// Retention's deletes for the embedded ledger, for the writer's thread and for a ledger that writes
// on its own connection (in memory). Plain JavaScript so the worker can import it without loading
// Node's TypeScript stripper; typed by delete-ledger-before.d.ts.

/** Requests deleted per call: each call is a transaction that holds the file's write lock that long. */
export const ROWS_PER_DELETE = 5_000;

const OLDEST = `SELECT id FROM usage_requests WHERE created_at < ? ORDER BY created_at LIMIT ${ROWS_PER_DELETE}`;

/**
 * Deletes the oldest ROWS_PER_DELETE requests created before `cutoff` (by the created_at index of
 * migration 016) and their attempts, in one transaction; returns how many requests it deleted.
 * Fewer than ROWS_PER_DELETE means none older is left. Called once per chunk, so that the writer's
 * thread writes the batches that arrive meanwhile between two chunks.
 */
export function deleteOldestRequests(db, cutoff) {
  return inTransaction(db, () => {
    db.prepare(`DELETE FROM usage_attempts WHERE usage_id IN (${OLDEST})`).run(cutoff);
    return Number(db.prepare(`DELETE FROM usage_requests WHERE id IN (${OLDEST})`).run(cutoff).changes);
  });
}

/** Deletes the rollup buckets wholly before the cutoff (`rollups`: each statement with its one parameter). */
export function deleteRollupBuckets(db, rollups) {
  inTransaction(db, () => {
    for (const { sql, before } of rollups) db.prepare(sql).run(before);
  });
}

function inTransaction(db, work) {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
