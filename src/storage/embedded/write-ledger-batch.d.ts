import type { DatabaseSync, StatementSync } from 'node:sqlite';

type SqlValue = string | number | null;

/** One usage record as the INSERTs take it: the request row and its attempt rows. */
export type LedgerRow = [request: SqlValue[], attempts: SqlValue[][]];

export function writeLedgerBatch(
  db: DatabaseSync,
  insertRequest: StatementSync,
  insertAttempt: StatementSync,
  batch: readonly LedgerRow[],
): void;
