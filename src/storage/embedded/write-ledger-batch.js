// One batch of usage rows in one transaction, for the ledger's writer thread and for a ledger
// that writes on its own connection (in memory). Plain JavaScript so the worker can import it
// without loading Node's TypeScript stripper; typed by write-ledger-batch.d.ts.

/** Rows are `[requestValues, attemptValues[]]`, in the columns of the two INSERT statements. */
export function writeLedgerBatch(db, insertRequest, insertAttempt, batch) {
  db.exec('BEGIN');
  try {
    for (const [request, attempts] of batch) {
      // A row already present (a retried batch) keeps its attempts as they were.
      if (insertRequest.run(...request).changes === 0) continue;
      for (const attempt of attempts) insertAttempt.run(...attempt);
    }
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
