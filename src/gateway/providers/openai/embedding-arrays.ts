import { type Float32Read, readFloat32 } from '../http/float32-number.ts';
import { isRecord } from '../json-guards.ts';

/**
 * An embeddings answer whose vectors are JSON number arrays (what many OpenAI-compatible servers
 * send, whatever `encoding_format` asked), read without a JavaScript array per vector: a small
 * scanner walks the body, reads each `data[i].embedding` array's numbers straight into a
 * Float32Array and puts `null` in its place; the rest of the body, a few hundred bytes, goes
 * through `JSON.parse`, and the vectors are put back. JSON.parse would build an array of 1,536
 * doubles per vector, which the answer then writes one number at a time.
 *
 * The scanner handles the shape servers send. Anything else (a key written with escapes, a
 * repeated `data` or `embedding` key, an embedding that is not an array of numbers, nesting past
 * MAX_DEPTH) makes it step aside, and the body is parsed as a whole as before, so an odd or
 * malformed answer gets exactly the error it got before. Replacing one well-formed array by
 * `null` keeps a malformed body malformed, so JSON.parse of the rest still refuses it.
 */

export interface LiftedEmbeddings {
  /** The vectors in the order they appear in the body. */
  vectors: Float32Array[];
  /** The body with each of those arrays replaced by `null`. */
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

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Numbers of the vector being read; grown as needed and reused from one vector to the next. */
let scratch = new Float32Array(4096);
const read: Float32Read = { end: 0, value: 0 };

/**
 * Reads the array of numbers at `start` (its `[`); returns the vector and where the array ends
 * (after `]`), or undefined when it is not a non-empty array of finite float32 numbers.
 */
function readVector(text: string, start: number): { vector: Float32Array; end: number } | undefined {
  let i = start + 1;
  let count = 0;
  for (;;) {
    while (isSpace(text.charCodeAt(i))) i++;
    readFloat32(text, i, read);
    if (read.end < 0 || !Number.isFinite(read.value)) return undefined;
    if (count === scratch.length) {
      const grown = new Float32Array(scratch.length * 2);
      grown.set(scratch);
      scratch = grown;
    }
    scratch[count++] = read.value;
    i = read.end;
    while (isSpace(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i++);
    if (c === CLOSE_BRACKET) return { vector: scratch.slice(0, count), end: i };
    if (c !== COMMA) return undefined;
  }
}

/** Lifts the `data[i].embedding` arrays out of an embeddings body; undefined when it steps aside. */
export function liftEmbeddingArrays(text: string): LiftedEmbeddings | undefined {
  const vectors: Float32Array[] = [];
  const pieces: string[] = [];
  let copiedUpTo = 0;
  const stack: number[] = [];
  // The key whose value comes next, when the container is an object (undefined in arrays).
  let key: string | undefined;
  let sawData = false;
  let inData = false; // inside the top-level `data` array
  let itemHasEmbedding = false;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === COMMA || c === COLON) {
      i++;
      continue;
    }
    if (c === QUOTE) {
      const end = endOfString(text, i);
      if (end < 0) return undefined;
      const top = stack.at(-1);
      // A string right after `{` or `,` in an object is a key: its colon follows.
      let next = end;
      while (isSpace(text.charCodeAt(next))) next++;
      if (top === OBJECT && key === undefined && text.charCodeAt(next) === COLON) {
        key = text.slice(i + 1, end - 1);
        // A key written with escapes might spell `data` or `embedding`: then the whole-body parse reads it.
        if (key.includes('\\') && escapedKeyMatters(text.slice(i, end))) return undefined;
        i = next + 1;
        continue;
      }
      // A base64 embedding (or any string there) is not this shape: step aside at once.
      if (top === OBJECT && stack.length === 3 && inData && key === 'embedding') return undefined;
      key = undefined;
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const depth = stack.length;
      if (depth >= MAX_DEPTH) return undefined;
      if (depth === 3 && inData && key === 'embedding') {
        if (c === OPEN_BRACE) return undefined;
        if (itemHasEmbedding) return undefined;
        itemHasEmbedding = true;
        const found = readVector(text, i);
        if (found === undefined) return undefined;
        vectors.push(found.vector);
        pieces.push(text.slice(copiedUpTo, i), 'null');
        copiedUpTo = found.end;
        i = found.end;
        key = undefined;
        continue;
      }
      if (depth === 1 && key === 'data') {
        if (sawData || c !== OPEN_BRACKET) return undefined;
        sawData = true;
        inData = true;
      }
      if (depth === 2 && inData) itemHasEmbedding = false;
      stack.push(c === OPEN_BRACE ? OBJECT : ARRAY);
      key = undefined;
      i++;
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      if (stack.length === 1) inData = false;
      key = undefined;
      i++;
      continue;
    }
    // A literal or a number: any other value of the item under `embedding` is not this shape.
    if (stack.length === 3 && inData && key === 'embedding') return undefined;
    key = undefined;
    while (i < length && !isDelimiter(text.charCodeAt(i))) i++;
  }
  if (vectors.length === 0) return undefined;
  pieces.push(text.slice(copiedUpTo));
  return { vectors, rest: pieces.join('') };
}

function escapedKeyMatters(quoted: string): boolean {
  try {
    const key: unknown = JSON.parse(quoted);
    return key === 'data' || key === 'embedding';
  } catch {
    return true;
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
function endOfString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    for (let j = quote - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * The body parsed with the lifted vectors in place, or undefined when the rest does not parse
 * or the vectors do not fill the items' `embedding` places one to one (the caller then parses
 * the whole body as before).
 */
export function parseWithLiftedEmbeddings(text: string): unknown {
  const lifted = liftEmbeddingArrays(text);
  if (lifted === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(lifted.rest);
  } catch {
    return undefined;
  }
  if (!isRecord(body) || !Array.isArray(body['data'])) return undefined;
  const data: unknown[] = body['data'];
  if (data.length !== lifted.vectors.length) return undefined;
  for (let j = 0; j < data.length; j++) {
    const item = data[j];
    if (!isRecord(item) || item['embedding'] !== null) return undefined;
    item['embedding'] = lifted.vectors[j];
  }
  return body;
}
