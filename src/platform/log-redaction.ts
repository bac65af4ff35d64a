/**
 * The log's redaction policy. Keys that may hold a secret are replaced by `[redacted]`:
 *
 * - exact paths, handled by pino's own `redact` (it only looks at the top-level keys named
 *   here, so they cost nothing to log lines without them);
 * - `secret`, `apiKey` and `password` one level below any top-level key, and `apiKey` two
 *   levels below: handled here. As pino wildcard paths (`*.secret`, `*.*.apiKey`…) they ran
 *   the redaction library on every value of every log line, strings and numbers included,
 *   which cost about 20 µs per request on the gateway; here a line whose values are not
 *   objects costs one type check per key.
 *
 * Objects are never changed in place: a value that needs redacting is copied first.
 */
export const CENSOR = '[redacted]';

export const REDACTED_PATHS = [
  'req.headers["x-gateway-secret"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'headers["x-gateway-secret"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'secret',
  'apiKey',
  'password',
];

/** Redacted one level below any top-level key (`*.secret`, `*.apiKey`, `*.password`). */
const NESTED_KEYS = ['secret', 'apiKey', 'password'] as const;
/** Redacted two levels below any top-level key (`*.*.apiKey`). */
const DEEP_KEY = 'apiKey';

/**
 * Keys whose values pino passes through a serializer (`err` here, `req` and `res` in Fastify's
 * child logger): they are redacted after serialization (`redactSerialized`), as pino redaction
 * always was, never as the raw request or error object.
 */
const SERIALIZED_KEYS = new Set(['err', 'req', 'res']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function copyOf(value: Record<string, unknown>): Record<string, unknown> {
  return (Array.isArray(value) ? [...value] : { ...value }) as Record<string, unknown>;
}

/** One value of a log line (or a serializer's output), with the nested keys above redacted. */
export function redactNested(value: unknown): unknown {
  if (!isObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const inner = value[key];
    if (isObject(inner) && DEEP_KEY in inner) {
      copy ??= copyOf(value);
      const innerCopy = copyOf(inner);
      innerCopy[DEEP_KEY] = CENSOR;
      copy[key] = innerCopy;
    }
  }
  for (const key of NESTED_KEYS) {
    if (key in value) {
      copy ??= copyOf(value);
      copy[key] = CENSOR;
    }
  }
  return copy ?? value;
}

/**
 * A log line's own fields (pino `formatters.log`) or a child logger's bindings
 * (`formatters.bindings`): each object value redacted, the line copied only when something was.
 */
export function redactFields<T extends Record<string, unknown>>(fields: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (!isObject(value) || SERIALIZED_KEYS.has(key)) continue;
    const redacted = redactNested(value);
    if (redacted !== value) {
      copy ??= { ...fields };
      copy[key] = redacted;
    }
  }
  return (copy ?? fields) as T;
}

/** Wraps a serializer so that what it returns is redacted like any other value. */
export function redactSerialized<A>(serializer: (value: A) => unknown): (value: A) => unknown {
  return (value) => redactNested(serializer(value));
}
