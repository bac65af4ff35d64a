import fc from 'fast-check';

/** One endpoint to fuzz: where it is, and a valid body or query to mutate from. */
export interface FuzzTarget {
  surface: 'gateway' | 'site';
  method: string;
  /** A route as Fastify knows it; `:name` and `*` are filled in with random segments. */
  route: string;
  /** A path a valid call uses (the route with its parameters filled in). */
  path: string;
  body?: unknown;
  query?: Record<string, string>;
  /** Headers a valid call sends (credentials, accept, origin). */
  headers?: Record<string, string>;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Names that break code indexing plain objects with a caller's string. */
const INHERITED_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

const nastyString = fc.oneof(
  fc.constantFrom(
    ...INHERITED_NAMES,
    '',
    '*',
    '%',
    '%zz',
    '..',
    '/',
    '\u0000',
    '\uD800',
    'null',
    '-1',
    '1e999',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => 'a'.repeat(n)),
);

const nastyNumber = fc.oneof(
  fc.constantFrom(0, -1, -0, 1, 0.5, 2 ** 31, 2 ** 53, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-320),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A value nested `depth` levels deep, which recursive code may not survive. */
const deepValue = fc.integer({ min: 50, max: 3_000 }).chain((depth) =>
  fc.constantFrom('array', 'object').map((kind) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
    return value;
  }),
);

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 100, maxLength: 2_000 }) },
);

/** Every path to a value inside `value` (objects and arrays), the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, i]));
  } else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

/** A copy of `base` with the value at `path` (or a new key under it) replaced or removed. */
function mutate(base: unknown, path: (string | number)[], key: string | undefined, value: unknown): unknown {
  const copy: unknown = structuredClone(base);
  if (path.length === 0 && key === undefined) return value;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, key === undefined ? -1 : path.length)) {
    const next = parent[step];
    if (typeof next !== 'object' || next === null) return copy;
    parent = next as Record<string | number, unknown>;
  }
  const slot = key ?? (path.at(-1) as string | number);
  // An array's length cannot be deleted, nor set to a value that is not a length: no JSON body
  // could say that anyway (JSON.stringify writes an array's items, never its length).
  if (Array.isArray(parent) && slot === 'length') return copy;
  if (value === undefined) delete parent[slot];
  else Object.defineProperty(parent, slot, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function mutatedBody(base: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(base);
  return fc
    .record({
      path: fc.constantFrom(...paths),
      key: fc.option(fc.oneof(fc.constantFrom(...INHERITED_NAMES), fc.string({ maxLength: 12 })), {
        nil: undefined,
      }),
      value: fc.option(nastyValue, { nil: undefined, freq: 8 }),
    })
    .map(({ path, key, value }) => mutate(base, path, key, value));
}

/** A body that is not the valid one: a mutation of it (most often: it reaches the deepest code), garbage, or none. */
function badPayloadOf(target: FuzzTarget): fc.Arbitrary<string | undefined> {
  const base = target.body;
  const garbage: fc.Arbitrary<string | undefined>[] = [
    fc.constant(undefined),
    fc.string({ maxLength: 200 }),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  ];
  if (base === undefined) return fc.oneof(...garbage);
  const text = JSON.stringify(base);
  return fc.oneof(
    { weight: 12, arbitrary: mutatedBody(base).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: text.length }).map((cut) => text.slice(0, cut)) },
    { weight: 3, arbitrary: fc.oneof(...garbage) },
  );
}

/** Percent-encodes the UTF-8 bytes of any string, lone surrogates included (encodeURIComponent throws on those). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function pathOf(target: FuzzTarget): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.constantFrom(...INHERITED_NAMES, 'x', '*', '%2F', '%', '%E0%A4%A', '..', ''),
    fc.string({ maxLength: 20 }).map(percentEncode),
  );
  const filled = fc
    .tuple(segment, segment)
    .map(([name, rest]) => target.route.replace(':name', name || 'x').replace('*', rest || 'x'));
  const suffix = fc.constantFrom('', '', '', '/', '/*/x', '*', '/%', '%00', '//x', '?a=%zz', '/..%2F');
  return fc.tuple(filled, suffix).map(([path, end]) => path + end);
}

function queryOf(target: FuzzTarget & { query: Record<string, string> }, _bad: false): string {
  const pairs = Object.entries(target.query).map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** The valid query with some parameters replaced or added (inherited names among them). */
function queryArbitrary(target: FuzzTarget): fc.Arbitrary<string> {
  const base = target.query ?? {};
  const keys = [...Object.keys(base), ...INHERITED_NAMES];
  const values = fc.oneof(nastyString, fc.constantFrom(...Object.values(base), ''));
  return fc
    .dictionary(fc.constantFrom(...keys), values, { minKeys: 1, maxKeys: 4 })
    .map((extra) => queryOf({ ...target, query: { ...base, ...extra } }, false));
}

const printable = (text: string) => /^[\t\x20-\x7e]*$/.test(text);

/** The valid headers with one dropped, replaced by a stranger's value, or joined by an odd one. */
function badHeadersOf(target: FuzzTarget): fc.Arbitrary<Record<string, string>> {
  const valid = target.headers ?? {};
  const names = [...Object.keys(valid), 'content-type', 'x-request-id', 'accept', 'origin', 'authorization'];
  const value = fc.oneof(
    fc.constantFrom(
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/*',
      ';;',
      'Bearer x:y',
      'null',
    ),
    nastyString.filter(printable),
    fc.string({ maxLength: 300 }).filter(printable),
  );
  return fc
    .record({ name: fc.constantFrom(...names), value: fc.option(value, { nil: undefined, freq: 4 }) })
    .map(({ name, value }) => {
      const headers = { ...valid };
      if (value === undefined) delete headers[name];
      else headers[name] = value;
      return headers;
    });
}

type Part = 'method' | 'path' | 'query' | 'headers' | 'payload';

/**
 * Requests that are almost right: the target's valid call with one or two of its parts changed
 * (mostly the body), so that most of them pass the outer checks and reach the deeper code.
 */
export function fuzzRequests(target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const valid = {
    method: target.method,
    path: target.path,
    query: target.query === undefined ? '' : queryOf({ ...target, query: target.query }, false),
    headers: target.headers ?? {},
    payload: target.body === undefined ? undefined : JSON.stringify(target.body),
  };
  const part = fc.oneof(
    { weight: target.body === undefined ? 0 : 10, arbitrary: fc.constant<Part>('payload') },
    { weight: 3, arbitrary: fc.constant<Part>('headers') },
    { weight: 2, arbitrary: fc.constant<Part>('path') },
    { weight: target.query === undefined ? 1 : 4, arbitrary: fc.constant<Part>('query') },
    { weight: 1, arbitrary: fc.constant<Part>('method') },
  );
  return fc
    .record({
      changed: fc.uniqueArray(part, { minLength: 1, maxLength: 2 }),
      method: fc.constantFrom(...METHODS),
      path: pathOf(target),
      query: queryArbitrary(target),
      headers: badHeadersOf(target),
      payload: badPayloadOf(target),
    })
    .map((bad) => {
      const pick = <K extends Part>(key: K) => (bad.changed.includes(key) ? bad[key] : valid[key]);
      const method = pick('method');
      return describedShortly({
        method,
        url: pick('path') + pick('query'),
        headers: pick('headers'),
        payload: method === 'GET' || method === 'HEAD' ? undefined : pick('payload'),
      });
    });
}

/** fast-check prints a failing request through this: long strings are cut, or a report runs to megabytes. */
function describedShortly(request: FuzzRequest): FuzzRequest {
  const cut = (text: string | undefined) =>
    text === undefined || text.length <= 300 ? text : `${text.slice(0, 300)}…(${text.length} characters)`;
  return Object.defineProperty(request, fc.toStringMethod, {
    value: () =>
      JSON.stringify({ ...request, url: cut(request.url), payload: cut(request.payload) }, (_key, value) =>
        typeof value === 'string' ? cut(value) : value,
      ),
  });
}
