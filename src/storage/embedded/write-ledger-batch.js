// One batch of usage rows in one transaction, for the ledger's writer thread and for a ledger
// that writes on its own connection (in memory). Plain JavaScript so the worker can import it
// without loading Node's TypeScript stripper; typed by write-ledger-batch.d.ts.

/** Rows per multi-row INSERT at most; batches are cut into powers of two up to it. */
const MAX_ROWS_PER_STATEMENT = 64;

/**
 * Writes LedgerBatches (see write-ledger-batch.d.ts) with multi-row INSERTs: one statement for up
 * to 64 rows instead of one per row. Each `run()` is a crossing into SQLite with its own result
 * object and statement reset; taking 64 rows at a time cut the writer thread's SQLite time per
 * record by about a quarter (with `npm run bench`'s rows, in a file in WAL mode).
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
    this.#requests.check(batch.requests, batch.attemptCounts.length);
    this.#attempts.check(
      batch.attempts,
      batch.attemptCounts.reduce((sum, count) => sum + count, 0),
    );
    this.#db.exec('BEGIN');
    try {
      if (!this.#requests.runAll(batch.requests)) {
        // Some record was already stored: start again, one row at a time.
        this.#db.exec('ROLLBACK');
        this.#db.exec('BEGIN');
        this.#writeOneByOne(batch);
      } else {
        this.#attempts.runAll(batch.attempts);
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  #writeOneByOne({ requests, attempts, attemptCounts }) {
    let attempt = 0;
    for (let record = 0; record < attemptCounts.length; record++) {
      const count = attemptCounts[record];
      // A row already present keeps its attempts as they were.
      if (this.#requests.runOne(requests, record) !== 0) {
        for (let i = attempt; i < attempt + count; i++) this.#attempts.runOne(attempts, i);
      }
      attempt += count;
    }
  }
}

/**
 * Prepared multi-row INSERT statements for one table, one per power-of-two row count. Rows come
 * as one flat array of values, `columns` to a row.
 */
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

  /** Throws unless `values` holds exactly `rows` rows: a batch built wrong must not be half written. */
  check(values, rows) {
    if (values.length !== rows * this.#shape.columns) {
      throw new Error(
        `usage ledger batch: ${values.length} values for ${rows} rows of ${this.#shape.columns} columns`,
      );
    }
  }

  /** Inserts every row; false, stopping there, at the first statement that added fewer than it was given. */
  runAll(values) {
    const columns = this.#shape.columns;
    const rows = values.length / columns;
    for (let at = 0, k = Math.log2(MAX_ROWS_PER_STATEMENT); at < rows; ) {
      while (1 << k > rows - at) k--;
      const count = 1 << k;
      const chunk = values.slice(at * columns, (at + count) * columns);
      if (Number(this.#statement(k).run(...chunk).changes) !== count) return false;
      at += count;
    }
    return true;
  }

  /** Inserts row `row` alone; how many rows it added (0 for a conflict). */
  runOne(values, row) {
    const columns = this.#shape.columns;
    const chunk = values.slice(row * columns, (row + 1) * columns);
    return Number(this.#statement(0).run(...chunk).changes);
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
