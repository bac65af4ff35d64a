/**
 * The little a store written once for both engines needs: statements with `?` placeholders
 * (numbered for PostgreSQL by its executor), rows as plain objects, and transactions. BIGINT
 * columns arrive as strings from PostgreSQL and numbers from SQLite: readers convert with Number.
 */
export type SqlRow = Record<string, unknown>;

export interface SqlExecutor {
  all(sql: string, params?: readonly unknown[]): Promise<SqlRow[]>;
  /** Runs a write; resolves how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs `work` in one transaction, on one connection: all of it or none. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

/** A number from a BIGINT column (a string on PostgreSQL); null stays null. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}
