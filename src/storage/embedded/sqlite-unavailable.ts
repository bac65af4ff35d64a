/**
 * SQLite's primary result codes (https://sqlite.org/rescode.html) that say the database file
 * cannot be used now, whatever the statement: BUSY and LOCKED (another connection held a lock past
 * the busy timeout), NOMEM, READONLY (the file or its directory lost write permission), IOERR (the
 * disk failed a read or write), CORRUPT, FULL (the disk is full), CANTOPEN, PROTOCOL (a locking
 * race SQLite gave up on), NOTADB (the file is not, or no longer, a database). The rest (ERROR for
 * a bad statement or a missing table, CONSTRAINT, MISMATCH, MISUSE, RANGE…) are programming
 * errors and stay 500s.
 */
const UNAVAILABLE_CODES = new Set([5, 6, 7, 8, 10, 11, 13, 14, 15, 26]);

/**
 * Whether an error from node:sqlite means the database file cannot serve us now (503). node:sqlite
 * throws `code: 'ERR_SQLITE_ERROR'` with the extended result code in `errcode`, whose low byte is
 * the primary code.
 */
export function isSqliteUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errcode } = error as Error & { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && UNAVAILABLE_CODES.has(errcode & 0xff);
}
