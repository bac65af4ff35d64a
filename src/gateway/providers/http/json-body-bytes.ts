/**
 * An upstream request's JSON body as UTF-8 bytes, byte for byte what `JSON.stringify` gives,
 * without ever holding the whole body as one string.
 *
 * Why: an agent's request carries its whole history (100k tokens is 400 kB of JSON), and one
 * string of that size is a V8 large object: each gets memory of its own, which the kernel
 * faults in page by page and which is given back when the string dies. `JSON.stringify` builds
 * its result in pieces, and `Buffer.from` (undici's, for a string body) flattens them into one
 * such string before copying it out. On the bench's 100-turn conversation that cost about a
 * millisecond per turn, more than half of it system time (docs/performance.md, issue 33). Here the
 * request object and its arrays (`messages`, `tools`…) are walked, each of their items goes
 * through `JSON.stringify` as a string of its own (small: one message), and the pieces are
 * written one after another into a single Buffer. A body of few items stays one `JSON.stringify`
 * and costs what it did.
 */

/**
 * How many levels of plain objects and arrays are walked (the request object, then its arrays:
 * each message whole); values below are stringified whole.
 */
const WALKED_DEPTH = 2;
/**
 * Below this many items in the body's arrays together, the body is one `JSON.stringify`: a chat
 * of a few messages is far from a large object, and writing it in pieces cost about 3 µs more
 * than the one string (4 against 1 µs for the bench's chat body).
 */
const ITEMS_WORTH_PIECES = 16;

/**
 * What `JSON.stringify(value)` gives, as its UTF-8 bytes when the body has many items and as the
 * string otherwise (undici sends both alike); throws where it throws (a cycle, a BigInt).
 */
export function jsonBody(value: unknown): string | Buffer {
  if (!hasManyItems(value)) {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError('the body has no JSON form');
    return text;
  }
  return jsonBodyBytes(value);
}

/** The UTF-8 bytes of `JSON.stringify(value)`; throws where it throws (a cycle, a BigInt). */
export function jsonBodyBytes(value: unknown): Buffer {
  const pieces: string[] = [];
  if (!writePieces(value, '', WALKED_DEPTH, pieces)) throw new TypeError('the body has no JSON form');
  let bytes = 0;
  for (const piece of pieces) bytes += Buffer.byteLength(piece);
  const body = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const piece of pieces) at += body.write(piece, at);
  return body;
}

/**
 * Appends the JSON text of `value` (the member `key` of its holder) to `pieces`, as
 * JSON.stringify writes it; false where JSON.stringify gives `undefined` (undefined, a function,
 * a symbol), which leaves the property out of an object and writes `null` in an array.
 */
function writePieces(value: unknown, key: string, depth: number, pieces: string[]): boolean {
  if (depth === 0 || !isWalkable(value)) {
    const text = leafText(value, key);
    if (text === undefined) return false;
    pieces.push(text);
    return true;
  }
  if (Array.isArray(value)) {
    pieces.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) pieces.push(',');
      if (!writePieces(value[i], String(i), depth - 1, pieces)) pieces.push('null');
    }
    pieces.push(']');
    return true;
  }
  const object = value as Record<string, unknown>;
  pieces.push('{');
  let first = true;
  for (const member of Object.keys(object)) {
    const at = pieces.length;
    pieces.push(first ? `${JSON.stringify(member)}:` : `,${JSON.stringify(member)}:`);
    if (writePieces(object[member], member, depth - 1, pieces)) first = false;
    else pieces.length = at;
  }
  pieces.push('}');
  return true;
}

/**
 * JSON.stringify of one value. A `toJSON` is called with the member's key, as it would be inside
 * the whole body (Date's ignores it; one of a caller's own might not): such a value is written
 * as the only member of an object, and the member's text taken out.
 */
function leafText(value: unknown, key: string): string | undefined {
  const hasToJson =
    (typeof value === 'object' || typeof value === 'bigint') &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function';
  if (!hasToJson || key === '') return JSON.stringify(value);
  const member = JSON.stringify({ [key]: value });
  const prefix = JSON.stringify(key).length + 2;
  return member.length === 2 ? undefined : member.slice(prefix, -1);
}

function hasManyItems(value: unknown): boolean {
  if (!isWalkable(value) || Array.isArray(value)) return false;
  let items = 0;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (Array.isArray(field)) items += field.length;
  }
  return items >= ITEMS_WORTH_PIECES;
}

/**
 * Arrays and plain objects without `toJSON`: what JSON.stringify writes member by member. Anything
 * else (a Date, a boxed primitive, a class instance, a value with `toJSON`) goes to JSON.stringify
 * as it is, which treats it as it always did.
 */
function isWalkable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
