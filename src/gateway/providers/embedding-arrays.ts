import { JsonNumberArray } from '../domain/json-number-array.ts';
import { isRecord } from './json-guards.ts';

/**
 * An embeddings answer whose vectors are JSON number arrays, read without decoding or parsing
 * the vectors: a small scanner walks the body's bytes, keeps each vector array (at the place the
 * vendor's shape puts it: `data[i].embedding` for OpenAI-compatible servers, `embeddings[i].values`
 * for Gemini) as the bytes it is (JsonNumberArray, which checks that they are only JSON numbers)
 * and puts `null` in its place; the rest of the body, a few hundred bytes, is decoded and goes
 * through `JSON.parse`, and the vectors are put back. The answer then copies those bytes out as
 * they came.
 *
 * The scanner handles the shape servers send. Anything else (a key written with escapes, a
 * repeated list or vector key, a vector that is not an array of numbers within JsonNumberArray's
 * bounds, nesting past MAX_DEPTH) makes it step aside, and the body is parsed as a whole as
 * before, so an odd or malformed answer gets exactly the error it got before. Replacing one
 * well-formed array by `null` keeps a malformed body malformed, so JSON.parse of the rest still
 * refuses it. The body is only ever cut at the ASCII brackets of those arrays, so decoding the
 * pieces apart gives the text that decoding it whole would.
 */

/** Where a vendor's answer keeps its vectors: `{"<list>": [{"<vector>": [numbers]}, ...]}`. */
export class EmbeddingPlace {
  readonly list: string;
  readonly vector: string;
  readonly listBytes: Buffer;
  readonly vectorBytes: Buffer;

  constructor(list: string, vector: string) {
    this.list = list;
    this.vector = vector;
    this.listBytes = Buffer.from(list);
    this.vectorBytes = Buffer.from(vector);
  }
}

export interface LiftedEmbeddings {
  /** The vectors in the order they appear in the body. */
  vectors: JsonNumberArray[];
  /** The body as text, with each of those arrays replaced by `null`. */
  rest: string;
}

const MAX_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const OBJECT = 0;
const ARRAY = 1;

/** What the key of the value that comes next says. */
const NO_KEY = 0; // in an array, or after an object's value
const OTHER_KEY = 1;
const LIST_KEY = 2;
const VECTOR_KEY = 3;

function isSpace(c: number | undefined): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Lifts the `<list>[i].<vector>` arrays out of an embeddings body; undefined when it steps aside. */
export function liftEmbeddingArrays(bytes: Buffer, place: EmbeddingPlace): LiftedEmbeddings | undefined {
  const vectors: JsonNumberArray[] = [];
  let rest = '';
  let copiedUpTo = 0;
  const stack: number[] = [];
  let key = NO_KEY;
  let sawList = false;
  let inList = false; // inside the top-level list of items
  let itemHasVector = false;
  let i = 0;
  const length = bytes.length;
  while (i < length) {
    const c = bytes[i] as number;
    if (isSpace(c) || c === COMMA || c === COLON) {
      i++;
      continue;
    }
    if (c === QUOTE) {
      const end = endOfString(bytes, i);
      if (end < 0) return undefined;
      const top = stack.at(-1);
      // A string right after `{` or `,` in an object is a key: its colon follows.
      let next = end;
      while (isSpace(bytes[next])) next++;
      if (top === OBJECT && key === NO_KEY && bytes[next] === COLON) {
        key = keyOf(bytes, i + 1, end - 1, place);
        // A key written with escapes might spell one of the place's: then the whole-body parse reads it.
        if (key === NO_KEY) return undefined;
        i = next + 1;
        continue;
      }
      // A base64 embedding (or any string there) is not this shape: step aside at once.
      if (top === OBJECT && stack.length === 3 && inList && key === VECTOR_KEY) return undefined;
      key = NO_KEY;
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const depth = stack.length;
      if (depth >= MAX_DEPTH) return undefined;
      if (depth === 3 && inList && key === VECTOR_KEY) {
        if (c === OPEN_BRACE || itemHasVector) return undefined;
        itemHasVector = true;
        const vector = JsonNumberArray.read(bytes, i);
        if (vector === undefined) return undefined;
        vectors.push(vector);
        rest += `${bytes.toString('utf8', copiedUpTo, i)}null`;
        i += vector.elements.length + 2;
        copiedUpTo = i;
        key = NO_KEY;
        continue;
      }
      if (depth === 1 && key === LIST_KEY) {
        if (sawList || c !== OPEN_BRACKET) return undefined;
        sawList = true;
        inList = true;
      }
      if (depth === 2 && inList) itemHasVector = false;
      stack.push(c === OPEN_BRACE ? OBJECT : ARRAY);
      key = NO_KEY;
      i++;
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      if (stack.length === 1) inList = false;
      key = NO_KEY;
      i++;
      continue;
    }
    // A literal or a number: any other value of the item under the vector key is not this shape.
    if (stack.length === 3 && inList && key === VECTOR_KEY) return undefined;
    key = NO_KEY;
    while (i < length && !isDelimiter(bytes[i] as number)) i++;
  }
  if (vectors.length === 0) return undefined;
  rest += bytes.toString('utf8', copiedUpTo);
  return { vectors, rest };
}

/** The key between `start` and `end` (its quotes excluded); NO_KEY when escapes might spell one of ours. */
function keyOf(bytes: Buffer, start: number, end: number, place: EmbeddingPlace): number {
  for (let j = start; j < end; j++) {
    if (bytes[j] === BACKSLASH) return escapedKeyOf(bytes.toString('utf8', start - 1, end + 1), place);
  }
  if (matches(bytes, start, end, place.listBytes)) return LIST_KEY;
  if (matches(bytes, start, end, place.vectorBytes)) return VECTOR_KEY;
  return OTHER_KEY;
}

function matches(bytes: Buffer, start: number, end: number, key: Buffer): boolean {
  return end - start === key.length && bytes.compare(key, 0, key.length, start, end) === 0;
}

function escapedKeyOf(quoted: string, place: EmbeddingPlace): number {
  try {
    const key: unknown = JSON.parse(quoted);
    return key === place.list || key === place.vector ? NO_KEY : OTHER_KEY;
  } catch {
    return NO_KEY;
  }
}

function isDelimiter(c: number): boolean {
  return (
    c === COMMA ||
    c === CLOSE_BRACE ||
    c === CLOSE_BRACKET ||
    c === COLON ||
    c === QUOTE ||
    c === OPEN_BRACE ||
    c === OPEN_BRACKET ||
    isSpace(c)
  );
}

/** The index after the string starting at `start` (its opening quote), or -1 when it never ends. */
function endOfString(bytes: Buffer, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, i);
    if (quote < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    for (let j = quote - 1; bytes[j] === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * The body parsed with the lifted vectors in place, or undefined when the rest does not parse
 * or the vectors do not fill the items' vector places one to one (the caller then parses the
 * whole body as before).
 */
export function parseWithLiftedEmbeddings(bytes: Buffer, place: EmbeddingPlace): unknown {
  const lifted = liftEmbeddingArrays(bytes, place);
  if (lifted === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(lifted.rest);
  } catch {
    return undefined;
  }
  const items = isRecord(body) ? body[place.list] : undefined;
  if (!Array.isArray(items)) return undefined;
  if (items.length !== lifted.vectors.length) return undefined;
  for (let j = 0; j < items.length; j++) {
    const item = items[j];
    if (!isRecord(item) || item[place.vector] !== null) return undefined;
    item[place.vector] = lifted.vectors[j];
  }
  return body;
}
