import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { SqlExecutor, SqlRow } from '../sql-executor.ts';

/**
 * SqlExecutor over one SQLite connection. Statements are prepared once per text. A transaction's
 * work awaits between its statements, so every statement of this executor waits for the
 * transaction in progress (one at a time, in order): another caller's statement can never land
 * inside it, nor its BEGIN inside another's.
 */
export class SqliteExecutor implements SqlExecutor {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #tail: Promise<unknown> = Promise.resolve();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  all(sql: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    return this.#queued(() => this.#all(sql, params));
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.#queued(() => this.#run(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#queued(async () => {
      this.#db.exec('BEGIN IMMEDIATE');
      const inside: SqlExecutor = {
        all: async (sql, params = []) => this.#all(sql, params),
        run: async (sql, params = []) => this.#run(sql, params),
        transaction: (nested) => nested(inside),
      };
      try {
        const result = await work(inside);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  #queued<T>(work: () => T | Promise<T>): Promise<T> {
    const next = this.#tail.then(work);
    this.#tail = next.catch(() => {});
    return next;
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #all(sql: string, params: readonly unknown[]): SqlRow[] {
    return this.#prepare(sql).all(...(params as SQLInputValue[])) as SqlRow[];
  }

  #run(sql: string, params: readonly unknown[]): number {
    return Number(this.#prepare(sql).run(...(params as SQLInputValue[])).changes);
  }
}
