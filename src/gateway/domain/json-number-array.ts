/**
 * An embedding an upstream sent as a JSON array of numbers, kept as the bytes it sent rather
 * than read into numbers: the answer writes those bytes back out as they came (decision 0006:
 * numbers an upstream sends as JSON numbers are passed on as those numbers), so a 1,536-number
 * vector costs one scan and one copy instead of a number parse and a number print per value.
 *
 * An upstream is not trusted, and these bytes go into our own JSON unread: `read` accepts only
 * an array of one or more JSON numbers (RFC 8259 §6, whitespace between tokens as §2 allows) and
 * nothing else, so no text can close the array early or add a key. Each number must also lie below
 * 10^38 in magnitude, which its text shows without computing it: then the number is finite as a
 * double and as a float32 too (float32's largest is 3.4e38), so neither the client reading it nor
 * `toFloat32Array` ever meets an infinity. Anything else (an empty array, a string, a nested
 * array, NaN, 1e999, a very long exponent) is not read, and the caller parses the body as before.
 * The scan is one pass over the bytes with no backtracking and no memory beyond the result.
 */
export class JsonNumberArray {
  /** The text between the brackets: JSON numbers, commas and JSON whitespace (ASCII only). */
  readonly elements: Uint8Array;
  /** How many numbers: the vector's dimensions. */
  readonly length: number;

  private constructor(elements: Uint8Array, length: number) {
    this.elements = elements;
    this.length = length;
  }

  /**
   * The array whose `[` is at `start` in `bytes`, viewing those bytes (no copy), or undefined
   * when it is not a non-empty array of JSON numbers within the bounds above. It ends at
   * `start + elements.length + 2`, after its `]`.
   */
  static read(bytes: Uint8Array, start: number): JsonNumberArray | undefined {
    if (bytes[start] !== OPEN_BRACKET) return undefined;
    // No `]` can be inside such an array, so the first one after `[` is its end, if it is one.
    // Every loop below stops at it too (it is no digit, sign, point or space): none reads past it.
    const close = bytes.indexOf(CLOSE_BRACKET, start);
    if (close < 0) return undefined;
    let i = skipSpace(bytes, start + 1);
    let count = 0;
    for (;;) {
      i = endOfNumber(bytes, i);
      if (i < 0) return undefined;
      count++;
      i = skipSpace(bytes, i);
      if (i === close) return new JsonNumberArray(bytes.subarray(start + 1, close), count);
      if (bytes[i] !== COMMA) return undefined;
      i = skipSpace(bytes, i + 1);
    }
  }

  /**
   * The numbers as float32, for a client that asked for packed float32 (base64): each is
   * `Math.fround` of what `JSON.parse` reads from its text. Parsed only when asked.
   */
  toFloat32Array(): Float32Array {
    return Float32Array.from(JSON.parse(`[${ASCII.decode(this.elements)}]`) as number[]);
  }
}

/** Each accepted number's magnitude is below 10^MAX_DECIMAL_EXPONENT (see the class comment). */
const MAX_DECIMAL_EXPONENT = 38;
/** Exponent digits read (leading zeros count): past that, the number is left to JSON.parse. */
const MAX_EXPONENT_DIGITS = 4;

const ASCII = new TextDecoder();

const SPACE = 32;
const TAB = 9;
const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const MINUS = 45;
const PLUS = 43;
const POINT = 46;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const LOWER_E = 101;
/** `E` and `e` differ only in this bit. */
const LOWER_CASE_BIT = 0x20;

function skipSpace(bytes: Uint8Array, start: number): number {
  let i = start;
  // Most servers write no whitespace at all: one comparison for them.
  if ((bytes[i] as number) > SPACE) return i;
  for (;;) {
    const c = bytes[i] as number;
    if (c !== SPACE && c !== LINE_FEED && c !== CARRIAGE_RETURN && c !== TAB) return i;
    i++;
  }
}

/** Where the digits from `start` end. */
function skipDigits(bytes: Uint8Array, start: number): number {
  let i = start;
  // One comparison: a byte XOR `0` is at most 9 for the ten digits only (their high bits are
  // `0`'s); past the end of the bytes, undefined XOR `0` is `0` itself, so no loop runs on there.
  while (((bytes[i] as number) ^ DIGIT_0) <= 9) i++;
  return i;
}

/**
 * Where the JSON number at `start` ends (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
 * or -1 when there is none or it is outside the bounds. What follows is the caller's to check
 * (`01` ends after its `0`, and the `1` then fails as no comma or bracket).
 */
function endOfNumber(bytes: Uint8Array, start: number): number {
  let i = start;
  if (bytes[i] === MINUS) i++;
  const lead = bytes[i] as number;
  // Digits before the point, a lone `0` counting none: the number is below 10^wholeDigits.
  let wholeDigits = 0;
  if (lead === DIGIT_0) {
    i++;
  } else if (lead > DIGIT_0 && lead <= DIGIT_9) {
    const first = i;
    i = skipDigits(bytes, i + 1);
    wholeDigits = i - first;
  } else {
    return -1;
  }
  if (bytes[i] === POINT) {
    const first = ++i;
    i = skipDigits(bytes, i);
    if (i === first) return -1;
  }
  let exponent = 0;
  if (((bytes[i] as number) | LOWER_CASE_BIT) === LOWER_E) {
    i++;
    const sign = bytes[i];
    if (sign === MINUS || sign === PLUS) i++;
    const first = i;
    i = skipDigits(bytes, i);
    if (i === first || i - first > MAX_EXPONENT_DIGITS) return -1;
    for (let j = first; j < i; j++) exponent = exponent * 10 + ((bytes[j] as number) - DIGIT_0);
    if (sign === MINUS) exponent = -exponent;
  }
  return wholeDigits + exponent > MAX_DECIMAL_EXPONENT ? -1 : i;
}
