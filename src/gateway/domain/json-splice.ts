import { membersOf, skipSpace, type ValueSpan } from './json-top-level.ts';

export type { ValueSpan };

/**
 * Changing one field of a JSON object without writing the rest again: the same-vendor lane of the
 * Anthropic door (CONTRACT 5.2) sends the client's body upstream with only `model` replaced, and
 * relays the upstream's `message_delta` with only `usage.cost_usd` added. Parsing and serialising
 * again would keep the meaning but not the bytes (number forms, escapes, key order of
 * duplicates, whitespace), and the bytes are what a signature or a cache prefix sees.
 *
 * The scan runs over the UTF-8 bytes (json-top-level.ts): a client's megabyte body is never
 * decoded into a string for it, strings are skipped from quote to quote natively (a
 * character-by-character walk of a 1.1 M-character Claude Code body held the event loop 2.4 ms).
 * The body is trusted to be valid JSON (it was parsed before, by Fastify, the JSON thread or the
 * adapter); the scan is linear and allocates only the result.
 */

const OPEN_BRACE = 0x7b;

/** Each body's top-level index, made once: the lane's reading, its splice and a cloud's edits scan the same bytes. */
const indexes = new WeakMap<Uint8Array, ReadonlyMap<string, ValueSpan> | null>();

/**
 * The top-level members of `bytes` (json-top-level.ts), scanned once per Buffer: a Buffer read
 * again (the lane's reading, then its splice of `model`) is not scanned again. The bytes must not
 * change while they are in use, which a request's body and an event's text never do.
 */
export function topLevelIndex(bytes: Uint8Array): ReadonlyMap<string, ValueSpan> | undefined {
  let index = indexes.get(bytes);
  if (index === undefined) {
    index = membersOf(bytes) ?? null;
    indexes.set(bytes, index);
  }
  return index ?? undefined;
}

/** Keeps a top-level index made elsewhere (a reader's deeper walk of the same bytes) for the splice. */
export function rememberTopLevelIndex(bytes: Uint8Array, index: ReadonlyMap<string, ValueSpan>): void {
  indexes.set(bytes, index);
}

/**
 * The span of the value of `key` in the top-level object of `bytes`, the last one when the key is
 * repeated (JSON.parse keeps the last); undefined when the bytes are not an object or lack it.
 * Keys are compared decoded, so `"mod\u0065l"` is `model`.
 */
export function findTopLevelValue(bytes: Uint8Array, key: string): ValueSpan | undefined {
  return topLevelIndex(bytes)?.get(key);
}

/**
 * `bytes` with the top-level field's value replaced by `valueJson`; undefined when it has no such
 * field. When the value already reads `valueJson` byte for byte, `bytes` themselves: the lane's
 * model is most often the client's own, and copying a megabyte prompt to write the same name again
 * cost a copy and its collection for nothing.
 */
export function replaceTopLevelValue(bytes: Buffer, key: string, valueJson: string): Buffer | undefined {
  const span = findTopLevelValue(bytes, key);
  if (span === undefined) return undefined;
  const value = Buffer.from(valueJson);
  if (bytes.subarray(span.start, span.end).equals(value)) return bytes;
  return Buffer.concat([bytes.subarray(0, span.start), value, bytes.subarray(span.end)]);
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
  // An event's bytes, read once: not kept in the index of request bodies.
  const span = membersOf(bytes)?.get(key);
  if (span === undefined || bytes[span.start] !== OPEN_BRACE) return undefined;
  const close = span.end - 1;
  const empty = skipSpace(bytes, span.start + 1) === close;
  const member = `${empty ? '' : ','}${JSON.stringify(name)}:${valueJson}`;
  return `${bytes.toString('utf8', 0, close)}${member}${bytes.toString('utf8', close)}`;
}
