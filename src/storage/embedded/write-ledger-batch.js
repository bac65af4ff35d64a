// One batch of usage rows in one transaction, for the ledger's writer thread and for a ledger
// that writes on its own connection (in memory). Plain JavaScript so the worker can import it
// without loading Node's TypeScript stripper; typed by write-ledger-batch.d.ts.

/** Rows per multi-row INSERT at most; batches are cut into powers of two up to it. */
const MAX_ROWS_PER_STATEMENT = 64;

/**
 * Writes batches of `[requestValues, attemptValues[]]` rows with multi-row INSERTs: one statement
 * for up to 64 rows instead of one per row. Each `run()` is a crossing into SQLite with its own
 * result object and statement reset; taking 64 rows at a time cut the writer thread's SQLite time
 * per record by about a quarter (with `npm run bench`'s rows, in a file in WAL mode).
 *
 * A record whose id is already stored (a retried batch) is skipped whole, attempts included. The
 * multi-row INSERT reports only how many rows it added, not which: when a statement added fewer
 * than it was given, the transaction is rolled back and the batch written again one row at a
 * time, where each request row's own count says whether its attempts go in.
 */
export class LedgerBatchWriter {
  #db;
  #requests;
  #attempts;

  /** `requestInsert` and `attemptInsert` are InsertShapes (see write-ledger-batch.d.ts). */
  constructor(db, requestInsert, attemptInsert) {
    this.#db = db;
    this.#requests = new ChunkedInsert(db, requestInsert);
    this.#attempts = new ChunkedInsert(db, attemptInsert);
  }

  write(batch) {
    this.#db.exec('BEGIN');
    try {
      if (!this.#writeAll(batch)) {
        // Some record was already stored: start again, one row at a time.
        this.#db.exec('ROLLBACK');
        this.#db.exec('BEGIN');
        this.#writeOneByOne(batch);
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** False (stopped, to be rolled back) as soon as one statement skipped a stored record. */
  #writeAll(batch) {
    const requests = new Array(batch.length);
    const attempts = [];
    for (let i = 0; i < batch.length; i++) {
      const [request, rowAttempts] = batch[i];
      requests[i] = request;
      for (const attempt of rowAttempts) attempts.push(attempt);
    }
    if (!this.#requests.runAll(requests)) return false;
    this.#attempts.runAll(attempts);
    return true;
  }

  #writeOneByOne(batch) {
    for (const [request, attempts] of batch) {
      // A row already present keeps its attempts as they were.
      if (this.#requests.runOne(request) === 0) continue;
      for (const attempt of attempts) this.#attempts.runOne(attempt);
    }
  }
}

/** Prepared multi-row INSERT statements for one table, one per power-of-two row count. */
class ChunkedInsert {
  #db;
  #shape;
  #rowPlaceholders;
  /** Index k holds the statement for 2^k rows. */
  #statements = [];

  constructor(db, shape) {
    this.#db = db;
    this.#shape = shape;
    this.#rowPlaceholders = `(${Array.from({ length: shape.columns }, () => '?').join(', ')})`;
  }

  /** Inserts the rows; false, stopping there, at the first statement that added fewer than it was given. */
  runAll(rows) {
    for (let at = 0, k = Math.log2(MAX_ROWS_PER_STATEMENT); at < rows.length; ) {
      while (1 << k > rows.length - at) k--;
      const count = 1 << k;
      const values = [];
      for (let i = at; i < at + count; i++) {
        const row = rows[i];
        for (let c = 0; c < row.length; c++) values.push(row[c]);
      }
      if (Number(this.#statement(k).run(...values).changes) !== count) return false;
      at += count;
    }
    return true;
  }

  /** Inserts one row; how many rows it added (0 for a conflict). */
  runOne(row) {
    return Number(this.#statement(0).run(...row).changes);
  }

  #statement(k) {
    let statement = this.#statements[k];
    if (statement === undefined) {
      const rows = Array.from({ length: 1 << k }, () => this.#rowPlaceholders).join(', ');
      statement = this.#db.prepare(`${this.#shape.head} ${rows} ${this.#shape.tail}`);
      this.#statements[k] = statement;
    }
    return statement;
  }
}
