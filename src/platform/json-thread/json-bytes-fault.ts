/**
 * Why `bytes` are not a body `parseJsonBody` accepts, or undefined when they are one, found
 * without building a value: the check of a same-vendor lane's large body, which is passed on as
 * its bytes and parsed only if something asks (deferred-json-body.ts). Parsing 1 MiB to throw the
 * value away cost the JSON thread about 6 ms per prompt, most of it the value's string and its
 * collection; this walk allocates nothing per byte.
 *
 * It accepts exactly what `parseJsonBody` accepts (json-bytes-fault.test.ts compares the two):
 * - the UTF-8 bytes of a JSON text (RFC 8259: its four whitespace bytes, its escapes, no raw
 *   control character in a string), after one leading byte-order mark. Bytes that are not UTF-8
 *   decode to U+FFFD, which a string may hold and nothing else may, so inside a string any byte
 *   from 0x80 up is taken and outside one none is;
 * - with no object holding a `__proto__` key, and none whose `constructor` (its last, as
 *   JSON.parse keeps the last of a repeated key) is an object with a `prototype` key: what
 *   secure-json-parse refuses as prototype poisoning under Fastify's default parser. Keys are
 *   compared decoded, so `"\u005f_proto__"` is `__proto__`.
 */
export function jsonBytesFault(bytes: Uint8Array): string | undefined {
  return new Walk(bytes).run();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** What a step of the walk leads to (a fault is a string). */
const READ_VALUE = 0;
const AFTER_VALUE = 1;
const END = 2;
type Step = typeof READ_VALUE | typeof AFTER_VALUE | typeof END | string;

/** Keys past this many bytes (escaped) cannot spell `constructor`, `prototype` or `__proto__`. */
const LONGEST_SPECIAL_KEY_BYTES = 11 * 6;

/** What an open object knows of its members so far. */
interface ObjectFrame {
  array: false;
  /** The member being read is `constructor`. */
  readingConstructor: boolean;
  /** Its last `constructor` is an object with a `prototype` key. */
  poisonedConstructor: boolean;
  /** It has a `prototype` key (for its parent's `constructor`). */
  hasPrototype: boolean;
}

interface ArrayFrame {
  array: true;
}

type Frame = ObjectFrame | ArrayFrame;

class Walk {
  readonly #bytes: Uint8Array;
  #at = 0;
  readonly #open: Frame[] = [];
  /** The value just read is an object with a `prototype` key. */
  #lastHadPrototype = false;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** Value after value, with no recursion: a container's depth is the stack's length. */
  run(): string | undefined {
    const bytes = this.#bytes;
    if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) this.#at = 3;
    this.#skipSpace();
    for (;;) {
      let step = this.#value();
      if (step === AFTER_VALUE) step = this.#afterValue();
      if (step === READ_VALUE) continue;
      return step === END ? undefined : (step as string);
    }
  }

  /**
   * Reads a value whole (a scalar, an empty container: AFTER_VALUE next), or opens a container up
   * to its first value (READ_VALUE next).
   */
  #value(): Step {
    const bytes = this.#bytes;
    this.#lastHadPrototype = false;
    if (this.#at >= bytes.length) return this.#fault('a value was expected');
    const byte = bytes[this.#at] as number;
    if (byte === OPEN_BRACE) {
      this.#at++;
      this.#skipSpace();
      const frame: ObjectFrame = {
        array: false,
        readingConstructor: false,
        poisonedConstructor: false,
        hasPrototype: false,
      };
      this.#open.push(frame);
      // An empty object is closed by #afterValue.
      if (bytes[this.#at] === CLOSE_BRACE) return AFTER_VALUE;
      return this.#key(frame) ?? READ_VALUE;
    }
    if (byte === OPEN_BRACKET) {
      this.#at++;
      this.#skipSpace();
      this.#open.push({ array: true });
      return bytes[this.#at] === CLOSE_BRACKET ? AFTER_VALUE : READ_VALUE;
    }
    const fault =
      byte === QUOTE
        ? this.#string()
        : byte === MINUS || (byte >= ZERO && byte <= NINE)
          ? this.#number()
          : byte === 0x74
            ? this.#literal('true')
            : byte === 0x66
              ? this.#literal('false')
              : byte === 0x6e
                ? this.#literal('null')
                : this.#fault('a value was expected');
    return fault ?? AFTER_VALUE;
  }

  /** After a value: a comma and the next key (READ_VALUE), containers closed, or the text's end (END). */
  #afterValue(): Step {
    const bytes = this.#bytes;
    for (;;) {
      this.#skipSpace();
      const frame = this.#open.at(-1);
      if (frame === undefined) return this.#at === bytes.length ? END : this.#fault('the text goes on');
      if (!frame.array && frame.readingConstructor) {
        frame.poisonedConstructor = this.#lastHadPrototype;
        frame.readingConstructor = false;
      }
      const byte = bytes[this.#at];
      if (byte === COMMA) {
        this.#at++;
        this.#skipSpace();
        return frame.array ? READ_VALUE : (this.#key(frame) ?? READ_VALUE);
      }
      if (frame.array ? byte !== CLOSE_BRACKET : byte !== CLOSE_BRACE)
        return this.#fault(frame.array ? 'a comma or ] was expected' : 'a comma or } was expected');
      this.#at++;
      this.#open.pop();
      if (frame.array) this.#lastHadPrototype = false;
      else {
        if (frame.poisonedConstructor) return 'an object has a constructor with a prototype';
        this.#lastHadPrototype = frame.hasPrototype;
      }
    }
  }

  /** A member's key and its colon; what the key is, noted on the object. */
  #key(frame: ObjectFrame): string | undefined {
    const bytes = this.#bytes;
    if (bytes[this.#at] !== QUOTE) return this.#fault('a key was expected');
    const start = this.#at;
    const fault = this.#string();
    if (fault !== undefined) return fault;
    if (this.#at - start - 2 <= LONGEST_SPECIAL_KEY_BYTES) {
      const key = decodedKey(bytes, start + 1, this.#at - 1);
      if (key === '__proto__') return 'an object has a __proto__ key';
      if (key === 'constructor') frame.readingConstructor = true;
      else if (key === 'prototype') frame.hasPrototype = true;
    }
    this.#skipSpace();
    if (bytes[this.#at] !== COLON) return this.#fault('a colon was expected');
    this.#at++;
    this.#skipSpace();
    return undefined;
  }

  /** A string from its opening quote to past its closing one. */
  #string(): string | undefined {
    const bytes = this.#bytes;
    const end = bytes.length;
    let at = this.#at + 1;
    while (at < end) {
      const byte = bytes[at] as number;
      if (byte === QUOTE) {
        this.#at = at + 1;
        return undefined;
      }
      if (byte < 0x20) return this.#fault('a string holds a control character', at);
      if (byte === BACKSLASH) {
        const escaped = bytes[at + 1];
        if (escaped === 0x75) {
          for (let digit = at + 2; digit < at + 6; digit++)
            if (!isHexDigit(bytes[digit])) return this.#fault('a \\u escape needs four hex digits', at);
          at += 6;
          continue;
        }
        if (escaped === undefined || !SIMPLE_ESCAPES.has(escaped)) return this.#fault('a bad escape', at);
        at += 2;
        continue;
      }
      at++;
    }
    return this.#fault('a string is not closed', at);
  }

  #number(): string | undefined {
    const bytes = this.#bytes;
    let at = this.#at;
    if (bytes[at] === MINUS) at++;
    if (bytes[at] === ZERO) at++;
    else if (isDigit(bytes[at])) while (isDigit(bytes[at])) at++;
    else return this.#fault('a number needs a digit', at);
    if (bytes[at] === DOT) {
      at++;
      if (!isDigit(bytes[at])) return this.#fault('a fraction needs a digit', at);
      while (isDigit(bytes[at])) at++;
    }
    if (bytes[at] === 0x65 || bytes[at] === 0x45) {
      at++;
      if (bytes[at] === PLUS || bytes[at] === MINUS) at++;
      if (!isDigit(bytes[at])) return this.#fault('an exponent needs a digit', at);
      while (isDigit(bytes[at])) at++;
    }
    this.#at = at;
    return undefined;
  }

  #literal(word: string): string | undefined {
    const bytes = this.#bytes;
    for (let index = 0; index < word.length; index++)
      if (bytes[this.#at + index] !== word.charCodeAt(index)) return this.#fault('a value was expected');
    this.#at += word.length;
    return undefined;
  }

  #skipSpace(): void {
    const bytes = this.#bytes;
    let at = this.#at;
    for (;;) {
      const byte = bytes[at];
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
      at++;
    }
    this.#at = at;
  }

  #fault(what: string, at = this.#at): string {
    return `${what} at byte ${at}`;
  }
}

/** What may follow a backslash besides `u`: `"`, `\`, `/`, b, f, n, r, t. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= ZERO && byte <= NINE;
}

function isHexDigit(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= ZERO && byte <= NINE) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66))
  );
}

/** A short key's text, its escapes decoded (its bytes are a string already checked). */
function decodedKey(bytes: Uint8Array, start: number, end: number): string {
  let plain = true;
  for (let at = start; at < end; at++) if (bytes[at] === BACKSLASH) plain = false;
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  return plain ? raw : (JSON.parse(`"${raw}"`) as string);
}
