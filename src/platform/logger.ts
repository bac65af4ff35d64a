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
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: {
      err: redactSerialized(pino.stdSerializers.err),
    },
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  const options = buildLoggerOptions(settings.level);
  const destination = settings.destination ?? batchedStdout();
  return redactingChildren(destination === undefined ? pino(options) : pino(options, destination));
}

/** Lines are written to stdout in batches of this many bytes… */
const BATCH_BYTES = 4096;
/** …or when this much time has passed, whichever comes first. */
const FLUSH_EVERY_MS = 100;
const FLUSHES_AFTER_LAST_LINE = 10;

/**
 * stdout, written in batches. pino's default destination already writes asynchronously, but
 * one line at a time: under load every request cost a write handed to libuv's thread pool
 * (a thread wake-up, a syscall and a completion), about 10 µs of CPU per request on the
 * gateway. Batched, lines reach stdout at most 100 ms late, and pino writes what is left
 * synchronously when the process exits. Undefined (pino's own default) when something has
 * replaced process.stdout.write, as a test runner may: pino then writes through it.
 */
function batchedStdout(): pino.DestinationStream | undefined {
  const stdout = process.stdout;
  // pino's own test for a replaced stdout.
  if (stdout.write !== stdout.constructor.prototype.write) return undefined;
  const destination = pino.destination({ fd: stdout.fd ?? 1, sync: false, minLength: BATCH_BYTES });
  // An idle server makes no empty writes: flushes run only for a while after the last line.
  // Several, because a flush while a write is in flight does nothing: the next one writes the rest.
  let flushesLeft = 0;
  const write = destination.write.bind(destination);
  destination.write = (line: string) => {
    flushesLeft = FLUSHES_AFTER_LAST_LINE;
    return write(line);
  };
  const timer = setInterval(() => {
    if (flushesLeft === 0) return;
    flushesLeft--;
    try {
      destination.flush();
    } catch {
      // Closed (the process is exiting): nothing is left to write.
      clearInterval(timer);
    }
  }, FLUSH_EVERY_MS);
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
