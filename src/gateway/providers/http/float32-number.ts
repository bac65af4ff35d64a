/**
 * Reads one JSON number from text straight to the float32 it rounds to, without a substring or
 * a double parse per number in the common case. The digits are gathered into a double (exact up
 * to 15 digits, within a few units in the last place past that) and scaled by a power of ten;
 * the float32 nearest that double is the float32 nearest the decimal unless the double lies
 * within its own error of a tie between two float32s, and only then is the decimal parsed
 * exactly (`Number`). An upstream's numbers are float32s printed in full, far from any tie, so
 * that path is rare. The result equals `Math.fround(JSON.parse(number))` for every JSON number
 * (property-tested).
 */

/** 10^k as the nearest double for k in [-400, 400]; exact for |k| <= 22. */
const POW10_OFFSET = 400;
const POW10 = new Float64Array(2 * POW10_OFFSET + 1);
for (let k = -POW10_OFFSET; k <= POW10_OFFSET; k++) POW10[k + POW10_OFFSET] = Number(`1e${k}`);

/** Digits gathered into the mantissa; past these only the exponent moves (19 digits: 1e-19 relative). */
const MAX_DIGITS = 19;

const scratch32 = new Float32Array(1);
const bits32 = new Uint32Array(scratch32.buffer);

/** Half the gap above the float32 `f` (below a power of two the gap is half that: see the check). */
function halfGap(f: number): number {
  scratch32[0] = f;
  const exponent = ((bits32[0] as number) >>> 23) & 0xff;
  // Subnormals (and zero) are 2^-149 apart.
  return exponent === 0 ? 2 ** -150 : 2 ** (exponent - 127 - 24);
}

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
      } else exponent++;
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
  let value: number;
  if (mantissa === 0) value = 0;
  else if (exponent < -POW10_OFFSET || exponent > POW10_OFFSET)
    value = exponent < 0 ? 0 : Number.POSITIVE_INFINITY;
  else if (exponent < -300) value = mantissa / (POW10[-exponent - 300 + POW10_OFFSET] as number) / 1e300;
  else
    value =
      exponent >= 0
        ? mantissa * (POW10[exponent + POW10_OFFSET] as number)
        : mantissa / (POW10[-exponent + POW10_OFFSET] as number);
  let f = Math.fround(value);
  // Near a tie between two float32s the double's small error could pick the wrong one: parse exactly.
  if (digits > 15 || exponent < -22 || exponent > 22 || value > 1e38 || (value !== 0 && value < 1e-37)) {
    const gap = halfGap(f);
    const distance = Math.abs(value - f);
    const tolerance = gap * 2 ** -21;
    const nearTie = Math.abs(distance - gap) <= tolerance || Math.abs(distance - gap / 2) <= tolerance;
    if (nearTie || !Number.isFinite(f) || f === 0) {
      f = Math.fround(Number(text.slice(negative ? start + 1 : start, i)));
    }
  }
  out.value = negative ? -f : f;
}
