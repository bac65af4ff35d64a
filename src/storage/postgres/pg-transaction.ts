import type pg from 'pg';
import type { CheckedOut, PgConnections } from './pg-connections.ts';

/**
 * Runs `work` in a transaction on a connection of its own: COMMIT when it succeeds; when it fails,
 * ROLLBACK, or the connection destroyed rather than pooled again (rollBackOrDiscard), and the
 * failure rethrown. When BEGIN fails on a connection that sat idle in the pool and turns out
 * dead (pg-connections.ts), the transaction runs once on another connection: nothing of it ran.
 * A failure after BEGIN is never retried here (the ledger's batches are written again by their
 * queue, a record id already stored skipped; the other callers answer the failure).
 */
export async function inTransaction<T>(
  connections: PgConnections,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const { client } = await begin(connections);
  let broken: Error | undefined;
  try {
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await rollBackOrDiscard(client, error);
    throw error;
  } finally {
    client.release(broken);
  }
}

/** A connection with BEGIN run on it, on a second connection when the first was found dead. */
async function begin(connections: PgConnections): Promise<CheckedOut> {
  const first = await connections.checkOut();
  try {
    await first.client.query('BEGIN');
    return first;
  } catch (error) {
    first.client.release(asError(error));
    if (!connections.foundLost(first, error)) throw error;
  }
  const second = await connections.checkOut();
  try {
    await second.client.query('BEGIN');
    return second;
  } catch (error) {
    second.client.release(asError(error));
    throw error;
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * After a statement of a transaction failed: ROLLBACK, and what to hand `client.release` (an
 * error destroys the connection instead of pooling it again). A statement that timed out
 * (pg-statement-timeout.ts) leaves its connection waiting on an answer that may never come: a ROLLBACK
 * would wait behind it for the whole bound again, and the connection is not fit for reuse, so it
 * is destroyed at once (the server rolls back a transaction whose connection is gone). A ROLLBACK
 * that fails likewise leaves the connection in an unknown state.
 */
async function rollBackOrDiscard(client: pg.PoolClient, failure: unknown): Promise<Error | undefined> {
  if (failure instanceof Error && failure.message === QUERY_TIMED_OUT) return failure;
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (rollbackError) {
    return asError(rollbackError);
  }
}

/** pg's error for a statement past its `query_timeout`. */
const QUERY_TIMED_OUT = 'Query read timeout';
