import { type Logger, type LoggerOptions, pino } from 'pino';

/**
 * Paths that may hold a secret anywhere a log call could reach. Request headers are never logged
 * whole (see the request serializer), so this list is a second line of defence.
 */
const REDACTED_PATHS = [
  'req.headers["x-gateway-secret"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'headers["x-gateway-secret"]',
  'headers.authorization',
  'secret',
  'apiKey',
  '*.secret',
  '*.apiKey',
  '*.*.apiKey',
  'password',
  '*.password',
];

export interface LoggerSettings {
  level: string;
  /** Destination stream; stdout when omitted. Tests pass a buffer to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function buildLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: {
      err: pino.stdSerializers.err,
    },
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  const options = buildLoggerOptions(settings.level);
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

export type { Logger };
