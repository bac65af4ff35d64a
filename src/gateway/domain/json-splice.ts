/**
 * Changing one field of a JSON object without writing the rest again: the same-vendor lane of the
 * Anthropic door (CONTRACT 5.2) sends the client's body upstream with only `model` replaced, and
 * relays the upstream's `message_delta` with only `usage.cost_usd` added. Parsing and serialising
 * again would keep the meaning but not the bytes (number forms, escapes, key order of
 * duplicates, whitespace), and the bytes are what a signature or a cache prefix sees.
 *
 * The scan runs over the UTF-8 bytes: JSON's structure is ASCII, and no byte of a multi-byte
 * character is below 0x80, so a quote, a backslash or a bracket byte is always that character. A
 * client's megabyte body is never decoded into a string for it, and strings are skipped from quote
 * to quote with `indexOf`, which runs natively (a character-by-character walk of a 1.1 M-character
 * Claude Code body held the event loop 2.4 ms). The body is trusted to be valid JSON (it was
 * parsed before, by Fastify or the adapter); the scan is linear and allocates only the result.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where a top-level field's value lies: `bytes.subarray(start, end)` is the value. */
export interface ValueSpan {
  start: number;
  end: number;
}

/**
 * The span of the value of `key` in the top-level object of `bytes`, the last one when the key is
 * repeated (JSON.parse keeps the last); undefined when the bytes are not an object or lack it.
 * Keys are compared decoded, so `"mod\u0065l"` is `model`.
 */
export function findTopLevelValue(bytes: Uint8Array, key: string): ValueSpan | undefined {
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_BRACE) return undefined;
  at = skipSpace(bytes, at + 1);
  let found: ValueSpan | undefined;
  while (at < bytes.length && bytes[at] !== CLOSE_BRACE) {
    const keyEnd = skipString(bytes, at);
    if (keyEnd === at) return undefined;
    const keyStart = at;
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== COLON) return undefined;
    const start = skipSpace(bytes, at + 1);
    const end = skipValue(bytes, start);
    if (end <= start) return undefined;
    if (sameKey(bytes, keyStart, keyEnd, key)) found = { start, end };
    at = skipSpace(bytes, end);
    if (bytes[at] === COMMA) at = skipSpace(bytes, at + 1);
  }
  return found;
}

/** `bytes` with the top-level field's value replaced by `valueJson`; undefined when it has no such field. */
export function replaceTopLevelValue(bytes: Buffer, key: string, valueJson: string): Buffer | undefined {
  const span = findTopLevelValue(bytes, key);
  if (span === undefined) return undefined;
  return Buffer.concat([bytes.subarray(0, span.start), Buffer.from(valueJson), bytes.subarray(span.end)]);
}

/**
 * `text` with `"name": valueJson` added as the last member of the object held by the top-level
 * field `key` (`usage` of a `message_delta`); undefined when that field is not an object.
 */
export function addToTopLevelObject(
  text: string,
  key: string,
  name: string,
  valueJson: string,
): string | undefined {
  const bytes = Buffer.from(text);
  const span = findTopLevelValue(bytes, key);
  if (span === undefined || bytes[span.start] !== OPEN_BRACE) return undefined;
  const close = span.end - 1;
  const empty = skipSpace(bytes, span.start + 1) === close;
  const member = `${empty ? '' : ','}${JSON.stringify(name)}:${valueJson}`;
  return `${bytes.toString('utf8', 0, close)}${member}${bytes.toString('utf8', close)}`;
}

function sameKey(bytes: Uint8Array, start: number, end: number, key: string): boolean {
  const quoted = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  if (!quoted.includes('\\')) return quoted.length === key.length + 2 && quoted.slice(1, -1) === key;
  try {
    return JSON.parse(quoted) === key;
  } catch {
    return false;
  }
}

function skipSpace(bytes: Uint8Array, at: number): number {
  let index = at;
  for (;;) {
    const byte = bytes[index];
    // space, tab, line feed, carriage return: JSON's only whitespace
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return index;
    index++;
  }
}

/**
 * The index after the string that starts at `at` (a `"`); `at` itself when none starts there.
 * Jumps from quote to quote, a quote preceded by an odd number of backslashes being escaped.
 */
function skipString(bytes: Uint8Array, at: number): number {
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

/** The index after the value that starts at `at`: a string, an object or array (nesting counted), or a literal. */
function skipValue(bytes: Uint8Array, at: number): number {
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
