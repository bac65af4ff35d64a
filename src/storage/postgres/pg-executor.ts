import type { SqlExecutor, SqlRow, TransactionWork } from '../sql-executor.ts';
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import type { PgConnections } from './pg-connections.ts';
import { inTransaction } from './pg-transaction.ts';

/** SqlExecutor over the pool: statements on any connection, a transaction on one of its own. */
export class PgExecutor implements SqlExecutor {
  readonly #connections: PgConnections;

  constructor(connections: PgConnections) {
    this.#connections = connections;
  }

  async all(sql: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    return (await this.#connections.query(numberPlaceholders(sql), [...params])).rows;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.#connections.query(numberPlaceholders(sql), [...params])).rowCount ?? 0;
  }

  transaction<T>(work: TransactionWork<T>): Promise<T> {
    return inTransaction(this.#connections, async (client) => {
      const steps = work();
      let step = steps.next();
      while (!step.done) {
        const { kind, sql, params } = step.value;
        const result = await client.query(numberPlaceholders(sql), [...params]);
        step = steps.next(kind === 'all' ? result.rows : (result.rowCount ?? 0));
      }
      return step.value;
    });
  }
}
