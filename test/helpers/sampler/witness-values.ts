import fc from 'fast-check';

/** The witnesses of witness-schemas.ts: small JSON values, and what the schemas need to know of them. */

/** Strings with a format, each valid for it; the witness takes one and the schema names the format. */
export const FORMATTED: readonly [string, string][] = [
  ['date', '2025-03-04'],
  ['time', '10:20:30+01:00'],
  ['date-time', '2025-03-04T10:20:30.5Z'],
  ['iso-time', '10:20:30'],
  ['iso-date-time', '2025-03-04T10:20:30'],
  ['duration', 'PT5M'],
  ['uri', 'http://a.example/b?c=d'],
  ['uri-reference', '../x'],
  ['uri-template', '/users/{id}'],
  ['url', 'https://b.example/'],
  ['email', 'someone@mail.example'],
  ['hostname', 'www.example.net'],
  ['ipv4', '198.51.100.7'],
  ['ipv6', '2001:db8:0:0:1::9'],
  ['regex', '[a-c]+x?'],
  ['uuid', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'],
  ['json-pointer', '/k/1'],
  ['json-pointer-uri-fragment', '#/k/1'],
  ['relative-json-pointer', '2/k'],
  ['byte', 'aGVsbG8='],
  ['password', 'hunter2'],
  ['binary', 'raw'],
];

const KEY = fc.stringMatching(/^[a-z]{1,3}$/);
const STRING = fc.oneof(
  fc.stringMatching(/^[a-z]{0,8}$/),
  fc.stringMatching(/^[0-9]{5}$/),
  fc.constantFrom(...FORMATTED.map(([, text]) => text)),
);
const NUMBER = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.integer({ min: -400, max: 400 }).map((n) => n / 4),
);

/** A small JSON value: the witness (through JSON text, as a request body would give it). */
export const witnessArb = fc
  .letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      fc.constant(null),
      fc.boolean(),
      NUMBER,
      STRING,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(KEY, tie('value'), { maxKeys: 3 }),
    ),
  }))
  .value.map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** A value of another JSON type than `value`'s, for branches the witness must not match. */
export function otherType(value: unknown): string {
  const type = typeName(value);
  return type === 'string' ? 'boolean' : type === 'boolean' || type === 'null' ? 'string' : 'null';
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function escapePattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Canonical text: equal JSON values (in JSON Schema's sense) give equal texts. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
