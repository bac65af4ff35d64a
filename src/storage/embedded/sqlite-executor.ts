import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { SqlExecutor, SqlRow, Statement, TransactionWork } from '../sql-executor.ts';

/**
 * SqlExecutor over the embedded database's connection. Statements are prepared once per text; a
 * transaction runs synchronously from BEGIN IMMEDIATE to COMMIT (see sql-executor.ts).
 */
export class SqliteExecutor implements SqlExecutor {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  async all(sql: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    return this.#all(sql, params);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.#run(sql, params);
  }

  async transaction<T>(work: TransactionWork<T>): Promise<T> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const steps = work();
      let step = steps.next();
      while (!step.done) step = steps.next(this.#execute(step.value));
      this.#db.exec('COMMIT');
      return step.value;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  #execute(statement: Statement): SqlRow[] | number {
    return statement.kind === 'all'
      ? this.#all(statement.sql, statement.params)
      : this.#run(statement.sql, statement.params);
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
