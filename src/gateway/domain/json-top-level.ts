/**
 * Reading a JSON document's structure from its UTF-8 bytes without building its values: where
 * each member of an object lies, where each element of an array lies, and what kind of value
 * starts at a byte. The same-vendor lanes (CONTRACT 5.2) read a few small fields of a body they
 * pass on (`model`, `max_tokens`, `stream`, the shape of `messages`) and splice `model` by its
 * offsets; parsing the whole body to read them held the event loop for every megabyte prompt
 * (docs/performance.md, "The lane's light reading").
 *
 * The bytes are trusted to be JSON (a JSON.parse of them, on the JSON thread or here, said so
 * before); on bytes that are not, every function still ends, linear in the input, without
 * throwing, and says undefined or less than is there. JSON's structure is ASCII and no byte of a
 * multi-byte character is below 0x80, so a quote, a backslash or a bracket byte is always that
 * character; strings are skipped from quote to quote with `indexOf`, which runs natively. Nesting
 * is counted, never recursed into: a body nested as deep as its size allows cannot overflow the
 * stack. A key repeated in one object is its last occurrence, as JSON.parse keeps the last.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where a value lies: `bytes.subarray(start, end)` is its JSON text. */
export interface ValueSpan {
  start: number;
  end: number;
}

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'true' | 'false' | 'null';

/** The span of the whole document: a leading byte-order mark and whitespace skipped, as JSON.parse reads the body. */
export function documentSpan(bytes: Uint8Array): ValueSpan | undefined {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const start = skipSpace(bytes, bom);
  const end = skipValue(bytes, start);
  return end > start ? { start, end } : undefined;
}

/** What kind of value starts at `at`; undefined for a byte no JSON value starts with. */
export function kindAt(bytes: Uint8Array, at: number): JsonKind | undefined {
  const byte = bytes[at];
  if (byte === OPEN_BRACE) return 'object';
  if (byte === OPEN_BRACKET) return 'array';
  if (byte === QUOTE) return 'string';
  if (byte === 0x74) return 'true';
  if (byte === 0x66) return 'false';
  if (byte === 0x6e) return 'null';
  if (byte === 0x2d || (byte !== undefined && byte >= 0x30 && byte <= 0x39)) return 'number';
  return undefined;
}

/**
 * The members of the object at `span` (the document's top level by default), each key decoded
 * (`"mod\u0065l"` is `model`) and mapped to its value's span, the last one of a repeated key;
 * undefined when no object starts there.
 */
export function membersOf(bytes: Uint8Array, span = documentSpan(bytes)): Map<string, ValueSpan> | undefined {
  if (span === undefined || bytes[span.start] !== OPEN_BRACE) return undefined;
  const members = new Map<string, ValueSpan>();
  let at = skipSpace(bytes, span.start + 1);
  while (at < span.end && bytes[at] !== CLOSE_BRACE) {
    const keyEnd = skipString(bytes, at);
    if (keyEnd === at) return members;
    const key = decodeKey(bytes, at, keyEnd);
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== COLON) return members;
    const start = skipSpace(bytes, at + 1);
    const end = skipValue(bytes, start);
    if (end <= start || key === undefined) return members;
    // Deleted first: a repeated key is the last one, and so is its place in the map's order.
    members.delete(key);
    members.set(key, { start, end });
    at = skipSpace(bytes, end);
    if (bytes[at] === COMMA) at = skipSpace(bytes, at + 1);
  }
  return members;
}

/** The spans of the elements of the array at `span`; undefined when no array starts there. */
export function elementsOf(bytes: Uint8Array, span: ValueSpan): ValueSpan[] | undefined {
  if (bytes[span.start] !== OPEN_BRACKET) return undefined;
  const elements: ValueSpan[] = [];
  let at = skipSpace(bytes, span.start + 1);
  while (at < span.end && bytes[at] !== CLOSE_BRACKET) {
    const end = skipValue(bytes, at);
    if (end <= at) return elements;
    elements.push({ start: at, end });
    at = skipSpace(bytes, end);
    if (bytes[at] === COMMA) at = skipSpace(bytes, at + 1);
  }
  return elements;
}

/** A value's place, and for an object or array read to some depth, its members or elements. */
export interface IndexedValue extends ValueSpan {
  members?: Map<string, IndexedValue>;
  elements?: IndexedValue[];
}

/**
 * The value at `span` with its members or elements indexed, and theirs, `depth` levels down (1:
 * the value's own members or elements), in one walk: each byte is passed once, where membersOf
 * and elementsOf of nested values pass the inner ones again (a prompt's megabyte string once per
 * level). Members as membersOf gives them (decoded keys, the last of a repeated key). The
 * recursion is `depth` deep at most; below it values are skipped as skipValue does.
 */
export function indexValue(bytes: Uint8Array, span: ValueSpan, depth: number): IndexedValue {
  return indexAt(bytes, span.start, depth) ?? { ...span };
}

function indexAt(bytes: Uint8Array, at: number, depth: number): IndexedValue | undefined {
  const first = bytes[at];
  if (depth <= 0 || (first !== OPEN_BRACE && first !== OPEN_BRACKET)) {
    const end = skipValue(bytes, at);
    return end > at ? { start: at, end } : undefined;
  }
  const object = first === OPEN_BRACE;
  const close = object ? CLOSE_BRACE : CLOSE_BRACKET;
  const members = new Map<string, IndexedValue>();
  const elements: IndexedValue[] = [];
  let index = skipSpace(bytes, at + 1);
  while (index < bytes.length && bytes[index] !== close) {
    let key: string | undefined;
    if (object) {
      const keyEnd = skipString(bytes, index);
      if (keyEnd === index) return undefined;
      key = decodeKey(bytes, index, keyEnd);
      index = skipSpace(bytes, keyEnd);
      if (bytes[index] !== COLON || key === undefined) return undefined;
      index = skipSpace(bytes, index + 1);
    }
    const child = indexAt(bytes, index, depth - 1);
    if (child === undefined) return undefined;
    if (key !== undefined) {
      members.delete(key);
      members.set(key, child);
    } else elements.push(child);
    index = skipSpace(bytes, child.end);
    if (bytes[index] === COMMA) index = skipSpace(bytes, index + 1);
  }
  if (bytes[index] !== close) return undefined;
  const end = index + 1;
  return object ? { start: at, end, members } : { start: at, end, elements };
}

/** The value at `span`, parsed: for the small fields a lane reads (`model`, `max_tokens`, `metadata`). */
export function parseSpan(bytes: Uint8Array, span: ValueSpan): unknown {
  return JSON.parse(textOf(bytes, span.start, span.end));
}

/**
 * An empty value of the kind at `span` (a literal as it is): what a check that reads only a
 * value's kind sees the same as the value, without the value being built.
 */
export function standInAt(bytes: Uint8Array, span: ValueSpan): unknown {
  switch (kindAt(bytes, span.start)) {
    case 'object':
      return {};
    case 'array':
      return [];
    case 'string':
      return '';
    default:
      return parseSpan(bytes, span);
  }
}

function textOf(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

function decodeKey(bytes: Uint8Array, start: number, end: number): string | undefined {
  const quoted = textOf(bytes, start, end);
  if (!quoted.includes('\\')) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

export function skipSpace(bytes: Uint8Array, at: number): number {
  let index = at;
  for (;;) {
    const byte = bytes[index];
    // space, tab, line feed, carriage return: JSON's only whitespace
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return index;
    index++;
  }
}

/**
 * The index after the string that starts at `at` (a `"`); `at` itself when none starts there or
 * it never ends. Jumps from quote to quote, a quote after an odd run of backslashes being escaped.
 */
export function skipString(bytes: Uint8Array, at: number): number {
  if (bytes[at] !== QUOTE) return at;
  let from = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1) return at;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after the value that starts at `at` (`at` itself when none does): nesting counted, not recursed. */
export function skipValue(bytes: Uint8Array, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return skipString(bytes, at);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let index = at;
    while (index < bytes.length) {
      const byte = bytes[index];
      if (byte === QUOTE) {
        const after = skipString(bytes, index);
        if (after === index) return at;
        index = after;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return index + 1;
      }
      index++;
    }
    return at;
  }
  let index = at;
  while (index < bytes.length && !isLiteralEnd(bytes[index] as number)) index++;
  return index;
}

/** What ends a number, `true`, `false` or `null`: a comma, a closing bracket, whitespace. */
function isLiteralEnd(byte: number): boolean {
  return (
    byte === COMMA ||
    byte === CLOSE_BRACE ||
    byte === CLOSE_BRACKET ||
    byte === 0x20 ||
    byte === 0x09 ||
    byte === 0x0a ||
    byte === 0x0d
  );
}
