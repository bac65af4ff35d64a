import { type Bindings, type ChildLoggerOptions, type Logger, type LoggerOptions, pino } from 'pino';
import { CENSOR, REDACTED_PATHS, redactFields, redactSerialized } from './log-redaction.ts';

export interface LoggerSettings {
  level: string;
  /** Destination stream; stdout when omitted. Tests pass a buffer to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function buildLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    // Secrets never reach the log: exact paths here, keys nested in any logged object in the
    // formatters (see log-redaction.ts). Request headers are never logged whole (see the
    // request serializer), so this is a second line of defence.
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    formatters: { log: redactFields, bindings: redactFields },
    base: { pid: process.pid },
    timestamp: isoTimeOncePerMillisecond,
    serializers: {
      err: redactSerialized(pino.stdSerializers.err),
    },
  };
}

/**
 * pino's `isoTime` (`,"time":"2026-11-24T13:12:58.123Z"`), formatted once per millisecond
 * rather than once per line: under load a busy gateway writes several lines in the same
 * millisecond, and `toISOString` was about 1% of its CPU. Within a second only the milliseconds
 * change, so `toISOString` (formatted in C++ through snprintf: 7.6k instructions a chat request in
 * callgrind, where valgrind's pace put each request in a millisecond of its own) runs once a
 * second, and each new millisecond is three digits appended to the second's text.
 */
let lastMs = Number.NaN;
let lastTime = '';
let lastSecond = Number.NaN;
/** `,"time":"2026-11-24T13:12:58.` for the second `lastSecond`. */
let secondText = '';
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const second = Math.floor(now / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      secondText = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
    }
    const ms = now - second * 1000;
    lastTime = `${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  }
  return lastTime;
}

export function createLogger(settings: LoggerSettings): Logger {
  const options = buildLoggerOptions(settings.level);
  const destination = settings.destination ?? batchedStdout();
  return redactingChildren(destination === undefined ? pino(options) : pino(options, destination));
}

/**
 * stdout, written in batches (see `batchLines`). pino's default destination already writes
 * asynchronously, but one line at a time: under load every request cost a write handed to
 * libuv's thread pool (a thread wake-up, a syscall and a completion), about 10 µs of CPU per
 * request on the gateway. Undefined (pino's own default) when something has replaced
 * process.stdout.write, as a test runner may: pino then writes through it.
 */
function batchedStdout(): pino.DestinationStream | undefined {
  const stdout = process.stdout;
  // pino's own test for a replaced stdout.
  if (stdout.write !== stdout.constructor.prototype.write) return undefined;
  // minLength 0: sonic-boom writes what it is handed as soon as no write is in flight; the
  // batching happens before it, in batchLines.
  const destination = pino.destination({ fd: stdout.fd ?? 1, sync: false, minLength: 0 });
  // 64 KiB a write, not 4: the thread pool's CPU per chat request fell from 2.3 to 0.4 µs
  // (per-thread CPU from /proc under the bench's chat load at c=50, on a slow box). Lines still
  // wait at most 100 ms.
  return batchLines(destination, { batchChars: 64 * 1024, flushEveryMs: 100 });
}

/** What `batchLines` needs of a destination; sonic-boom (pino.destination) has all three. */
export interface LineDestination {
  write(chunk: string): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
}

export interface LineBatching {
  /** Waiting lines are handed on once they hold this many characters… */
  batchChars: number;
  /** …or when this much time has passed, whichever comes first. */
  flushEveryMs: number;
}

/**
 * Collects log lines and hands them to `destination` joined, `batchChars` at a time. Not
 * sonic-boom's own `minLength`: its `write` takes the UTF-8 length of everything it holds on
 * every line (`Buffer.byteLength` of the growing buffer, which flattens it into a new string),
 * which cost the gateway ~2.4 KB of garbage per request at info level (39.5 against 37.1 KB
 * allocated per chat request, summed from `--trace-gc-nvp` under the bench's load).
 *
 * Lines wait at most `flushEveryMs`; `flush` and `flushSync` (pino's exit hook) hand on what is
 * waiting first, so nothing is lost at shutdown.
 */
export function batchLines<T extends LineDestination>(destination: T, options: LineBatching): T {
  const write = destination.write.bind(destination);
  const flush = destination.flush.bind(destination);
  const flushSync = destination.flushSync.bind(destination);
  let waiting = '';
  const handOn = () => {
    if (waiting.length === 0) return;
    const chunk = waiting;
    waiting = '';
    write(chunk);
  };
  destination.write = (line: string) => {
    waiting += line;
    if (waiting.length >= options.batchChars) handOn();
    return true;
  };
  destination.flush = (callback?: (error?: Error) => void) => {
    handOn();
    flush(callback);
  };
  destination.flushSync = () => {
    handOn();
    flushSync();
  };
  // An idle server's tick finds nothing waiting and writes nothing.
  const timer = setInterval(() => {
    try {
      handOn();
    } catch {
      // Closed (the process is exiting): nothing is left to write.
      clearInterval(timer);
    }
  }, options.flushEveryMs);
  timer.unref();
  return destination;
}

/**
 * pino applies `formatters.bindings` to the root's bindings only, never to a child's: the
 * children (Fastify makes one per request) get theirs redacted here. Children inherit this
 * `child` through their prototype, so grandchildren do too.
 */
export function redactingChildren(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) {
    return Reflect.apply(child, this, [redactFields(bindings), options]) as Logger;
  } as unknown as typeof child;
  return logger;
}

export type { Logger };
