import type pg from 'pg';
import type { SqlExecutor, SqlRow } from '../sql-executor.ts';
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

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return inTransaction(this.#connections, (client) => work(clientExecutor(client)));
  }
}

function clientExecutor(client: pg.PoolClient): SqlExecutor {
  const executor: SqlExecutor = {
    all: async (sql, params = []) => (await client.query(numberPlaceholders(sql), [...params])).rows,
    run: async (sql, params = []) => (await client.query(numberPlaceholders(sql), [...params])).rowCount ?? 0,
    transaction: (work) => work(executor),
  };
  return executor;
}
