import type pg from 'pg';
import { connectionLoss } from './connection-loss.ts';
import { checkOut } from './pg-check-out.ts';

/** A connection checked out of the pool, and whether it sat idle there before (it may have died meanwhile). */
export interface CheckedOut {
  client: pg.PoolClient;
  wasIdle: boolean;
}

/** A statement's text, or pg's query config (a named statement). */
export type Statement = string | pg.QueryConfig;

/**
 * The pool, with what it does not know about its idle connections. A connection that sat in the
 * pool while PostgreSQL was cut off (a partition, a proxy restart) is dead, but pg learns so only
 * when it writes to it: each such connection would fail one statement after the database is back.
 *
 * Here, a statement that fails on a connection that sat idle, because that connection was lost
 * (connection-loss.ts), has its connection discarded and runs once more on another, when running
 * it twice cannot apply it twice: always when nothing of it was sent, and for a read (SELECT)
 * also when it was. Every connection idle since before that failure sat through the same outage:
 * each is discarded instead of used, so the retry (and every statement after it) gets a live or a
 * new connection. One retry per statement, never a loop; a statement past its time bound and an
 * error the server answered are never retried.
 */
export class PgConnections {
  readonly #pool: pg.Pool;
  /** When each connection last went back to the pool in good order. */
  readonly #idleSince = new WeakMap<pg.PoolClient, number>();
  /** When a connection that sat idle was last found dead: those idle since before are suspect. */
  #lostAt = Number.NEGATIVE_INFINITY;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
    pool.on('release', (error, client) => {
      if (error === undefined || error === null) this.#idleSince.set(client, performance.now());
    });
  }

  /**
   * A connection from the pool, never one that sat idle through a loss found since (those are
   * destroyed on the way: at most the pool's size of them, each without a statement run on it).
   */
  async checkOut(): Promise<CheckedOut> {
    for (;;) {
      const client = await checkOut(this.#pool);
      const idleSince = this.#idleSince.get(client);
      if (idleSince !== undefined && idleSince < this.#lostAt) {
        client.release(new Error('idle through a lost connection'));
        continue;
      }
      return { client, wasIdle: idleSince !== undefined };
    }
  }

  /** One statement on a connection of its own, retried once as the class comment says. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    statement: Statement,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#runOnce<R>(statement, values);
    } catch (error) {
      if (!(error instanceof StaleConnection)) throw error;
      if (!error.retryable) throw error.cause;
      return this.#runOnce<R>(statement, values).catch((retryError: unknown) => {
        throw retryError instanceof StaleConnection ? retryError.cause : retryError;
      });
    }
  }

  /**
   * After the first statement of a transaction (BEGIN) failed on `failed`: whether to run the
   * transaction on another connection. BEGIN changes nothing, so sent or not it may run again.
   */
  foundLost(failed: CheckedOut, error: unknown): boolean {
    if (!failed.wasIdle || connectionLoss(error) === undefined) return false;
    this.#lostAt = performance.now();
    return true;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }

  async #runOnce<R extends pg.QueryResultRow>(
    statement: Statement,
    values: unknown[] | undefined,
  ): Promise<pg.QueryResult<R>> {
    const checkedOut = await this.checkOut();
    const { client } = checkedOut;
    try {
      const result = await client.query<R>(statement, values);
      client.release();
      return result;
    } catch (error) {
      // As pool.query does: a connection whose statement failed is not pooled again.
      client.release(error instanceof Error ? error : new Error(String(error)));
      if (!this.foundLost(checkedOut, error)) throw error;
      throw new StaleConnection(error, connectionLoss(error) === 'unsent' || isRead(statement));
    }
  }
}

/** A statement's failure on a connection that sat idle and was found dead. */
class StaleConnection extends Error {
  readonly retryable: boolean;

  constructor(cause: unknown, retryable: boolean) {
    super('a pooled connection was lost', { cause });
    this.retryable = retryable;
  }
}

/** A statement that only reads: running it twice changes nothing. */
function isRead(statement: Statement): boolean {
  const text = typeof statement === 'string' ? statement : statement.text;
  return /^\s*SELECT\b/i.test(text);
}
