import pg from 'pg';

/**
 * SQLSTATE classes (PostgreSQL, Appendix A) in which the server cannot serve any query now,
 * whatever it is: 08 connection exception, 28 invalid authorization (the role or its password
 * changed under us), 3D the database is gone, 53 insufficient resources (too many connections,
 * disk full, out of memory), 57 operator intervention (shutdown, crash recovery, "the database
 * system is starting up", a statement cancelled by a timeout), 58 system error (I/O).
 * Everything else (syntax, undefined table, constraint, data errors) is about the query: a
 * programming error that must stay a 500.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '3D', '53', '57', '58']);

/** Node's socket and name-resolution errors: the server cannot be reached, or the connection broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * pg's and pg-pool's own errors for a connection that broke (the server closed it, or it timed
 * out connecting), for a pool with no connection free in time, and for a query that got no answer
 * in time; they carry no code, only these messages (pg 8). The unit test makes each one happen
 * through a relay in front of the real server, so a change of wording in a later pg fails there.
 */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Query read timeout$/,
];

/** Whether an error from pg means PostgreSQL cannot serve us now (503), not that the query was wrong. */
export function isPostgresUnavailable(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) {
    return typeof error.code === 'string' && UNAVAILABLE_CLASSES.has(error.code.slice(0, 2));
  }
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  return CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message));
}
