/**
 * The little a store written once for both engines needs: statements with `?` placeholders
 * (numbered for PostgreSQL by its executor), rows as plain objects, and transactions. BIGINT
 * columns arrive as strings from PostgreSQL and numbers from SQLite: readers convert with Number.
 *
 * A transaction's work is a generator that yields its statements (`const rows = yield all(…)`):
 * on SQLite the executor runs it to its end synchronously, between BEGIN and COMMIT in one turn
 * of the event loop, so no other statement of the process can land inside it and no other
 * connection of the process can wait on its lock while it waits on theirs; on PostgreSQL each
 * statement is awaited on the transaction's own connection.
 */
export type SqlRow = Record<string, unknown>;

export interface Statement {
  kind: 'all' | 'run';
  sql: string;
  params: readonly unknown[];
}

/** A statement whose rows the transaction reads back (`yield` gives SqlRow[]). */
export function all(sql: string, params: readonly unknown[] = []): Statement {
  return { kind: 'all', sql, params };
}

/** A write whose count of changed rows the transaction reads back (`yield` gives a number). */
export function run(sql: string, params: readonly unknown[] = []): Statement {
  return { kind: 'run', sql, params };
}

// biome-ignore lint/suspicious/noExplicitAny: what a yield gives back depends on the statement's kind.
export type TransactionWork<T> = () => Generator<Statement, T, any>;

export interface SqlExecutor {
  all(sql: string, params?: readonly unknown[]): Promise<SqlRow[]>;
  /** Runs a write; resolves how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs `work` in one transaction: all of it or none. */
  transaction<T>(work: TransactionWork<T>): Promise<T>;
}

/** A number from a BIGINT column (a string on PostgreSQL); null stays null. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}
