import type { DatabaseSync } from 'node:sqlite';

type SqlValue = string | number | null;

/** One usage record as the INSERTs take it: the request row and its attempt rows. */
export type LedgerRow = [request: SqlValue[], attempts: SqlValue[][]];

/** An INSERT in three parts: `head` up to VALUES, the number of columns, and what follows the rows. */
export interface InsertShape {
  head: string;
  columns: number;
  tail: string;
}

export class LedgerBatchWriter {
  constructor(db: DatabaseSync, requestInsert: InsertShape, attemptInsert: InsertShape);
  /** All the rows in one transaction, or none (it throws). */
  write(batch: readonly LedgerRow[]): void;
}
