import type pg from 'pg';

/**
 * Longest a statement waits for PostgreSQL's answer (pg's `query_timeout`), the pool's default for
 * every statement (pg-storage.ts). A server that is down refuses or resets at once, but one cut off
 * by a network partition says nothing: without a bound a statement would wait until the kernel
 * gives the connection up (about 15 minutes on Linux), and so would the client: a usage read, a
 * newsletter signup, the ledger's background writes (which then retry; a record id already stored
 * is skipped). The statement is then given up with "Query read timeout" (a 503 on a read, the
 * newsletter's 500 upstream_failure), and pool.query closes its connection. Ten seconds is far
 * above the statements' usual times (milliseconds; a year of one app's usage on a large ledger,
 * seconds), so a slow database is not mistaken for a lost one.
 */
export const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Migrations (which wait their turn on a lock while another instance migrates) and the retention
 * sweep may legitimately take longer, and nobody waits on them: an hour.
 */
export const LONG_RUNNING_TIMEOUT_MS = 60 * 60_000;

/** Statements on `client` with the long bound instead of the pool's default. */
export function longRunning(
  client: pg.PoolClient,
): <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>> {
  // pg's per-query `query_timeout` (pg 8.13), which `@types/pg`'s QueryConfig does not list.
  return (text, values) =>
    client.query({
      text,
      query_timeout: LONG_RUNNING_TIMEOUT_MS,
      ...(values === undefined ? {} : { values }),
    } as pg.QueryConfig);
}
