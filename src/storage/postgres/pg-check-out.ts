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
