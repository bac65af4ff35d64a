import type pg from 'pg';

/** Connections already given the listener below (pg-pool reuses them). */
const listened = new WeakSet<pg.PoolClient>();

/**
 * A pooled connection for several statements in a row (a transaction, the migrations), which the
 * caller releases. pg-pool listens for a connection's 'error' only while it is idle in the pool;
 * a checked-out one that the server or the network resets (a restart, a failover, a cut cable)
 * emits 'error' with no listener, which Node throws as an uncaught exception: the whole process
 * ended. Its statements reject with the error anyway (the caller sees it there); the listener
 * added here only keeps it from being thrown a second time. It stays on the connection, once, so
 * a late 'error' (pg emits one for the reset, another when the socket ends) finds it too.
 */
export async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  if (!listened.has(client)) {
    client.on('error', () => {});
    listened.add(client);
  }
  return client;
}

/**
 * Runs `work` in a transaction on a connection of its own: COMMIT when it succeeds; when it fails,
 * ROLLBACK, or the connection destroyed rather than pooled again (rollBackOrDiscard), and the
 * failure rethrown.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await checkOut(pool);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
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
    return rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
  }
}

/** pg's error for a statement past its `query_timeout`. */
const QUERY_TIMED_OUT = 'Query read timeout';
