/** How long a client is asked to wait before trying again: about one reconnect attempt of the database. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * A dependency the request needs (the database) cannot serve it now: it is unreachable, the
 * connection broke, or it refuses work (shutting down, out of connections, an I/O error, a lock
 * held too long). Storage adapters throw it in place of their driver's error, deciding per engine
 * what counts (`storage/postgres/postgres-unavailable.ts`, `storage/embedded/sqlite-unavailable.ts`);
 * anything else, a programming error among them, stays what it was and answers 500.
 *
 * The error handler answers it with 503 `service_unavailable` and `Retry-After`. Its message is
 * what the client reads, so it names the dependency only: a driver's message can hold host names
 * and user names, and stays in `cause`, which goes to the log.
 */
export class DependencyUnavailableError extends Error {
  readonly dependency: string;
  readonly retryAfterSeconds = DEPENDENCY_RETRY_AFTER_SECONDS;

  constructor(dependency: string, cause: unknown) {
    super(`${dependency} is unavailable; try again in a few seconds`, { cause });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
  }
}
