import type { DatabaseSync } from 'node:sqlite';

type SqlValue = string | number | null;

/**
 * Usage records as the INSERTs take them: every request row's values end to end, in the request
 * INSERT's columns, every attempt row's likewise, and how many attempt rows each record has, in
 * order. Three flat arrays of primitives: handing a batch to the writer thread copies three
 * arrays, where an array per row cost twice the time to copy (serialize 1.0-1.4 against 2.5-2.9
 * µs per record, deserialize 1.9-2.1 against 2.9-6.4, `node:v8` on batches of 50).
 */
export interface LedgerBatch {
  requests: SqlValue[];
  attempts: SqlValue[];
  attemptCounts: number[];
}

/** An INSERT in three parts: `head` up to VALUES, the number of columns, and what follows the rows. */
export interface InsertShape {
  head: string;
  columns: number;
  tail: string;
}

export class LedgerBatchWriter {
  constructor(db: DatabaseSync, requestInsert: InsertShape, attemptInsert: InsertShape);
  /** All the rows in one transaction, or none (it throws). */
  write(batch: LedgerBatch): void;
}
