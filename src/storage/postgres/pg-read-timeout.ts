import type pg from 'pg';

/**
 * Longest a read on a request's path waits for PostgreSQL's answer (pg's `query_timeout`, per
 * query). A server that is down refuses or resets at once, but one cut off by a network partition
 * says nothing: without a bound the read would wait until the kernel gives the connection up
 * (about 15 minutes on Linux), and so would the client. The query is then given up with "Query read
 * timeout" (a 503) and its connection closed. Ten seconds is far above the reads' usual times
 * (milliseconds; a year of one app's usage on a large ledger, seconds), so a slow database is not
 * mistaken for a lost one.
 *
 * Migrations and the retention sweep run without it: they may legitimately take longer, and
 * nobody waits on them.
 */
export const READ_TIMEOUT_MS = 10_000;

/**
 * A read's query config with that bound: pg's per-query `query_timeout` (pg 8.13, which
 * `@types/pg`'s QueryConfig does not list). pool.query closes the connection of a query that timed out.
 */
export function boundedRead(text: string, values?: unknown[], name?: string): pg.QueryConfig {
  const config = {
    text,
    query_timeout: READ_TIMEOUT_MS,
    ...(values === undefined ? {} : { values }),
    ...(name === undefined ? {} : { name }),
  };
  return config;
}
