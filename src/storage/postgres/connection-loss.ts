import pg from 'pg';

/**
 * How a statement failed with its connection, as far as what reached the server is concerned:
 * - `unsent`: the connection was already gone when the statement was handed to it, so nothing of
 *   it can have run. The kernel refused the write (it had the peer's reset already: `write
 *   ECONNRESET`, `EPIPE`), or pg had marked the connection broken and never sent the statement.
 *   A complete statement is one write for pg's simple protocol; for the extended protocol the
 *   statement's implicit transaction commits only on Sync, its last message, which a failed
 *   write never lets out either.
 * - `sent`: the statement was written, then the connection broke before its answer (`read
 *   ECONNRESET`, "Connection terminated unexpectedly"). On a connection that sat idle it was most
 *   likely dead already, but a server that crashed while running the statement looks the same:
 *   it may have run.
 * undefined: anything else. An error from the server itself (it carries a SQLSTATE: the
 * connection worked) and a statement past its time bound (the server may be busy with it) are
 * never a lost connection here.
 */
export type ConnectionLoss = 'unsent' | 'sent';

/** Socket errors by which a write learns that the peer reset or closed the connection. */
const BROKEN_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ENOTCONN']);

/** pg 8's words for a statement it refused because the connection had failed before. */
const NOT_QUERYABLE = 'Client has encountered a connection error and is not queryable';
/** pg 8's words for the server's end of the connection going away under a statement. */
const TERMINATED = 'Connection terminated unexpectedly';

export function connectionLoss(error: unknown): ConnectionLoss | undefined {
  if (error instanceof pg.DatabaseError || !(error instanceof Error)) return undefined;
  if (error.message === NOT_QUERYABLE) return 'unsent';
  if (error.message === TERMINATED) return 'sent';
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !BROKEN_SOCKET_CODES.has(code)) return undefined;
  return syscall === 'write' ? 'unsent' : 'sent';
}
