/**
 * Float32 vectors written as JSON numbers straight into bytes: nine significant digits at most,
 * which name every float32 exactly (`Math.fround` of the number read back is the float32, bit for
 * bit; decision 0006), laid out as JavaScript writes a number (plain from 1e-6 up to 1e21, else
 * `1.5e-8` or `1e+21`), trailing zeros cut.
 *
 * Why not `toPrecision(9)`: V8 formats each number through its general decimal conversion and a
 * new string, about 90-130 ns a number, and the vector's text then goes through UTF-8 encoding on
 * the way to the socket. Here the digits come from one multiplication and integer arithmetic:
 * the float32 times 10^(8 - e), rounded to an integer of nine digits. That product can be off
 * by a unit in the last place of a double (10^k is inexact below 10^0 and above 10^22), which only
 * matters when it lies next to a tie between two nine-digit neighbours: those few numbers are
 * rounded by `toExponential` instead, so every float32 is written with the digits `toPrecision(9)`
 * gives it (checked once over every finite float32). Nine correctly rounded digits are within 5e-9
 * of the value, inside the half-gap of 2.98e-8 (at least) around every float32: the text reads
 * back to the same float32.
 */

/** Bytes one number may take, the comma before it included: `-123456789000000000000` (e = 20). */
export const FLOAT32_JSON_MAX_BYTES = 23;

const DIGIT_0 = 48;
const COMMA = 44;
const MINUS = 45;
const POINT = 46;
const LETTER_E = 101;
const PLUS = 43;

/** 10^k as the nearest double, for k in [-60, 60]: a float32's decimal exponent is in [-45, 38]. */
const POW10_OFFSET = 60;
const POW10 = new Float64Array(2 * POW10_OFFSET + 1);
for (let k = -POW10_OFFSET; k <= POW10_OFFSET; k++) POW10[k + POW10_OFFSET] = Number(`1e${k}`);

/** For n in [0, 100): its two digits' character codes, the tens in the high byte. */
const DIGIT_PAIRS = new Uint16Array(100);
for (let n = 0; n < 100; n++) DIGIT_PAIRS[n] = ((DIGIT_0 + Math.floor(n / 10)) << 8) | (DIGIT_0 + (n % 10));

/** 10^k as integers, k in [0, 9]. */
const INT_POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * Writes `vector`'s numbers, comma-separated, into `target` from `offset`; returns the offset
 * after the last byte. `target` needs `vector.length * FLOAT32_JSON_MAX_BYTES` bytes from
 * `offset`. The numbers must be finite (the adapters refuse any other).
 */
export function writeFloat32Json(target: Uint8Array, offset: number, vector: Float32Array): number {
  // The same bytes read as integers, for each number's sign and binary exponent.
  const bits = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  let pos = offset;
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) target[pos++] = COMMA;
    pos = writeOne(target, pos, vector[i] as number, bits[i] as number);
  }
  return pos;
}

function writeOne(target: Uint8Array, start: number, value: number, bits: number): number {
  let pos = start;
  if (bits >>> 31 === 1) target[pos++] = MINUS;
  const magnitude = value < 0 ? -value : value;
  if (magnitude === 0) {
    target[pos++] = DIGIT_0;
    return pos;
  }
  // e = floor(log10(magnitude)): estimated from the binary exponent (1233 / 4096 is log10(2) to
  // within 5e-6, which over [-149, 127] gives floor(e2 log10 2) exactly), then at most one step up.
  let e = (binaryExponent(bits) * 1233) >> 12;
  if (magnitude >= (POW10[e + 1 + POW10_OFFSET] as number)) e++;
  // Nine digits; + 0.5 then truncation rounds half up, the value being positive and below 2^31.
  const scaled = magnitude * (POW10[8 - e + POW10_OFFSET] as number);
  let digits = (scaled + 0.5) | 0;
  const pastHalf = scaled + 0.5 - digits;
  if (pastHalf < NEAR_TIE || pastHalf > 1 - NEAR_TIE) digits = nineDigitsExactly(magnitude, e);
  if (digits >= 1e9) {
    // Rounded up to the next power of ten.
    digits = 1e8;
    e++;
  }
  let count = 9;
  for (;;) {
    const tenth = (digits / 10) | 0;
    if (digits - tenth * 10 !== 0) break;
    digits = tenth;
    count--;
  }
  if (e < 0 && e >= -6) {
    // Below one: most embedding values, so laid out here rather than in a call.
    target[pos++] = DIGIT_0;
    target[pos++] = POINT;
    for (let zeros = -e - 1; zeros > 0; zeros--) target[pos++] = DIGIT_0;
    return writeDigits(target, pos, digits, count);
  }
  return layOutOther(target, pos, digits, count, e);
}

/**
 * How close to a tie between two nine-digit neighbours the scaled value may come before it is
 * rounded exactly instead: its error is at most 1.5 units in the last place of a double below
 * 2^30 (1.8e-7). About 2 numbers in a million fall this near.
 */
const NEAR_TIE = 1e-6;

/**
 * The nine digits of `magnitude` (at least 10^e, below 10^(e+1)) correctly rounded, ties away
 * from zero, as `toPrecision(9)` gives them; 1e9 when they round up to 10^(e+1).
 */
function nineDigitsExactly(magnitude: number, e: number): number {
  const text = magnitude.toExponential(8); // d.dddddddde±x
  const mark = text.indexOf('e');
  const digits = Number(text.slice(0, 1) + text.slice(2, mark));
  return Number(text.slice(mark + 1)) > e ? digits * 10 : digits;
}

/** floor(log2) of a finite, non-zero float32 given its bits (subnormals included). */
function binaryExponent(bits: number): number {
  const biased = (bits >>> 23) & 0xff;
  if (biased !== 0) return biased - 127;
  return -149 + (31 - Math.clz32(bits & 0x7fffff));
}

/**
 * `digits` (`count` of them, the last non-zero) times 10^(e - count + 1), as JavaScript lays it
 * out, for e outside [-6, -1].
 */
function layOutOther(target: Uint8Array, start: number, digits: number, count: number, e: number): number {
  let pos = start;
  if (e >= 0 && e < 21) {
    if (count <= e + 1) {
      pos = writeDigits(target, pos, digits, count);
      for (let zeros = e + 1 - count; zeros > 0; zeros--) target[pos++] = DIGIT_0;
      return pos;
    }
    const fractionCount = count - (e + 1);
    const scale = INT_POW10[fractionCount] as number;
    const whole = (digits / scale) | 0;
    pos = writeDigits(target, pos, whole, e + 1);
    target[pos++] = POINT;
    return writeDigits(target, pos, digits - whole * scale, fractionCount);
  }
  const scale = INT_POW10[count - 1] as number;
  const lead = (digits / scale) | 0;
  target[pos++] = DIGIT_0 + lead;
  if (count > 1) {
    target[pos++] = POINT;
    pos = writeDigits(target, pos, digits - lead * scale, count - 1);
  }
  target[pos++] = LETTER_E;
  target[pos++] = e < 0 ? MINUS : PLUS;
  const exponent = e < 0 ? -e : e;
  if (exponent >= 10) target[pos++] = DIGIT_0 + ((exponent / 10) | 0);
  target[pos++] = DIGIT_0 + (exponent % 10);
  return pos;
}

/** `value` in exactly `count` decimal digits (leading zeros kept), from `start`. */
function writeDigits(target: Uint8Array, start: number, value: number, count: number): number {
  let rest = value | 0;
  const end = start + count;
  let pos = end;
  while (pos - start >= 2) {
    const hundredth = (rest / 100) | 0;
    const pair = (DIGIT_PAIRS[rest - hundredth * 100] as number) | 0;
    pos -= 2;
    target[pos] = pair >>> 8;
    target[pos + 1] = pair & 0xff;
    rest = hundredth;
  }
  if (pos > start) target[start] = DIGIT_0 + rest;
  return end;
}
