import type pg from 'pg';

/**
 * Longest a statement waits for PostgreSQL's answer (pg's `query_timeout`): the pool's default
 * for every statement (pg-storage.ts), and written out on the reads of a request's path. A server
 * that is down refuses or resets at once, but one cut off by a network partition says nothing:
 * without a bound a statement would wait until the kernel gives the connection up (about 15
 * minutes on Linux), and so would the client: a usage read, a newsletter signup, the ledger's
 * background writes (which then retry; a record id already stored is skipped). The statement is
 * then given up with "Query read timeout" (a 503 on a read, the newsletter's 500
 * upstream_failure). Ten seconds is far above the statements' usual times (milliseconds; a year
 * of one app's usage on a large ledger, seconds), so a slow database is not mistaken for a lost one.
 */
export const READ_TIMEOUT_MS = 10_000;

/**
 * Migrations (which wait their turn on a lock while another instance migrates) and the retention
 * sweep may legitimately take longer, and nobody waits on them: an hour.
 */
export const LONG_RUNNING_TIMEOUT_MS = 60 * 60_000;

/**
 * A read's query config with that bound: pg's per-query `query_timeout` (pg 8.13, which
 * `@types/pg`'s QueryConfig does not list). pool.query closes the connection of a query that timed out.
 */
export function boundedQuery(text: string, values?: unknown[], name?: string): pg.QueryConfig {
  const config = {
    text,
    query_timeout: READ_TIMEOUT_MS,
    ...(values === undefined ? {} : { values }),
    ...(name === undefined ? {} : { name }),
  };
  return config;
}

/** Statements on `client` with the long bound instead of the pool's default. */
export function longRunning(
  client: pg.PoolClient,
): <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>> {
  return (text, values) =>
    client.query({
      text,
      query_timeout: LONG_RUNNING_TIMEOUT_MS,
      ...(values === undefined ? {} : { values }),
    } as pg.QueryConfig);
}
