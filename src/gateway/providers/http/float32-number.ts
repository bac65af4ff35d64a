/**
 * Reads one JSON number from text straight to the float32 it rounds to, without a substring or
 * a double parse per number in the common case. The first 15 significant digits are gathered
 * into an integer `m` (exact in a double) and scaled by 10^e with |e| <= 22 (exact too), so
 * `m × 10^e` is the correctly rounded double of those digits (Clinger's fast path). When digits
 * were cut, the number lies between `m × 10^e` and `(m + 1) × 10^e`: if both round to the same
 * float32, so does the number (rounding is monotonic); only otherwise, or past that exponent
 * range, is the text parsed exactly (`Number`). An upstream's numbers are float32s printed in
 * full (up to 17 digits), far from a tie, so that path is rare. The result equals
 * `Math.fround(JSON.parse(number))` for every JSON number (property-tested).
 */

/** 10^k for k in [0, 22]: every one exact in a double. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Significant digits gathered; an integer of 15 digits is exact in a double. */
const MAX_DIGITS = 15;

const DIGIT_0 = 48;
const MINUS = 45;
const POINT = 46;
const PLUS = 43;
const LOWER_E = 101;
const UPPER_E = 69;

/** Where the number ended and its value; `end` is -1 when the text there is no JSON number. */
export interface Float32Read {
  end: number;
  value: number;
}

/** Reads the JSON number at `start` into `out` (grammar of RFC 8259 §6, no leading `+`, no `.5`). */
export function readFloat32(text: string, start: number, out: Float32Read): void {
  const length = text.length;
  let i = start;
  let negative = false;
  if (text.charCodeAt(i) === MINUS) {
    negative = true;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let exponent = 0;
  // A nonzero digit was cut: the number lies above mantissa × 10^exponent, below the next.
  let cut = false;
  let c = text.charCodeAt(i);
  if (c === DIGIT_0) {
    i++;
  } else if (c > DIGIT_0 && c <= DIGIT_0 + 9) {
    for (; i < length; i++) {
      c = text.charCodeAt(i) - DIGIT_0;
      if (c < 0 || c > 9) break;
      if (digits < MAX_DIGITS) {
        mantissa = mantissa * 10 + c;
        digits++;
      } else {
        exponent++;
        if (c !== 0) cut = true;
      }
    }
  } else {
    out.end = -1;
    return;
  }
  if (text.charCodeAt(i) === POINT) {
    i++;
    const first = i;
    for (; i < length; i++) {
      c = text.charCodeAt(i) - DIGIT_0;
      if (c < 0 || c > 9) break;
      // Leading zeros of a fraction are no significant digits.
      if (digits < MAX_DIGITS && (digits > 0 || c !== 0)) {
        mantissa = mantissa * 10 + c;
        digits++;
        exponent--;
      } else if (digits === 0) exponent--;
      else if (c !== 0) cut = true;
    }
    if (i === first) {
      out.end = -1;
      return;
    }
  }
  c = text.charCodeAt(i);
  if (c === LOWER_E || c === UPPER_E) {
    i++;
    let sign = 1;
    c = text.charCodeAt(i);
    if (c === MINUS || c === PLUS) {
      if (c === MINUS) sign = -1;
      i++;
    }
    const first = i;
    let written = 0;
    for (; i < length; i++) {
      c = text.charCodeAt(i) - DIGIT_0;
      if (c < 0 || c > 9) break;
      // Past 10^6 the value is 0 or infinite either way; stop growing the number.
      if (written < 1e6) written = written * 10 + c;
    }
    if (i === first) {
      out.end = -1;
      return;
    }
    exponent += sign * written;
  }
  out.end = i;
  let f: number;
  if (mantissa === 0) {
    f = 0;
  } else if (exponent >= -22 && exponent <= 22) {
    const scale = POW10[exponent < 0 ? -exponent : exponent] as number;
    f = Math.fround(exponent < 0 ? mantissa / scale : mantissa * scale);
    if (cut && Math.fround(exponent < 0 ? (mantissa + 1) / scale : (mantissa + 1) * scale) !== f) {
      f = exactFloat32(text, negative ? start + 1 : start, i);
    }
  } else {
    f = exactFloat32(text, negative ? start + 1 : start, i);
  }
  out.value = negative ? -f : f;
}

function exactFloat32(text: string, start: number, end: number): number {
  return Math.fround(Number(text.slice(start, end)));
}
