import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FLOAT32_JSON_MAX_BYTES, writeFloat32Json } from './float32-json.ts';

/** The vector's text as writeFloat32Json writes it. */
function written(vector: Float32Array): string {
  const target = Buffer.alloc(vector.length * FLOAT32_JSON_MAX_BYTES);
  const end = writeFloat32Json(target, 0, vector);
  return target.toString('latin1', 0, end);
}

/** What JavaScript writes for the float32's nine-digit rounding (and -0 for negative zero). */
function reference(value: number): string {
  return Object.is(value, -0) ? '-0' : JSON.stringify(Number(value.toPrecision(9)));
}

/** The float32 whose bits are `bits`. */
function fromBits(bits: number): number {
  return new Float32Array(Uint32Array.of(bits).buffer)[0] as number;
}

test('writeFloat32Json writes each float32 as its nine-digit rounding, laid out as JavaScript does', () => {
  const values = [
    0, -0, 1, -1, 0.5, 100, 0.1, 16777216, 123456789, 1e9,
    // the plain and exponent forms meet at 1e-6 and 1e21
    1e-6, 9.999999e-7, 1e-7, 1e20, 9.99999e20, 1e21,
    // the largest float32, the smallest normal, the smallest subnormal
    3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45,
  ].map(Math.fround);
  const vector = Float32Array.from(values);
  assert.equal(written(vector), values.map(reference).join(','));
  assert.equal(
    written(vector),
    '0,-0,1,-1,0.5,100,0.100000001,16777216,123456792,1000000000,' +
      '9.99999997e-7,9.99999884e-7,1.00000001e-7,100000002000000000000,999999035000000000000,1.00000002e+21,' +
      '3.40282347e+38,1.17549435e-38,1.40129846e-45',
  );
});

test('writeFloat32Json rounds numbers next to a tie of nine digits exactly', () => {
  // Found by comparing every finite float32 with toPrecision(9): a product with an inexact power
  // of ten lands on the wrong side of the tie for these, unless they are rounded exactly.
  const nearTies = [4753935, 29362169, 37750777, 84440450, 1644578722, 1696654730, 1728511363, 1778720042];
  const vector = Float32Array.from(nearTies, fromBits);
  assert.equal(written(vector), Array.from(vector, reference).join(','));
  assert.ok(written(vector).startsWith('6.66168181e-39,7.05411012e-38,'), written(vector));
});

test('writeFloat32Json carries a number that rounds up to the next power of ten into the exponent', () => {
  // The one float32 below a power of ten whose nine digits round up to it (found by search).
  const belowPower = fromBits(423718298);
  assert.ok(belowPower < 1e-23);
  assert.equal(written(Float32Array.of(belowPower, -belowPower)), '1e-23,-1e-23');
});

test('writeFloat32Json agrees with toPrecision(9) and reads back bit for bit, for any float32', () => {
  const float32 = fc.float({ noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(fc.array(float32, { minLength: 1, maxLength: 50 }), (values) => {
      const vector = Float32Array.from(values);
      const text = written(vector);
      assert.equal(text, Array.from(vector, reference).join(','));
      const readBack = (JSON.parse(`[${text}]`) as number[]).map((value) => Math.fround(value));
      assert.deepEqual(readBack, Array.from(vector));
    }),
    { numRuns: 500 },
  );
});

test('writeFloat32Json stays within FLOAT32_JSON_MAX_BYTES a number, comma included', () => {
  // The longest forms: 21 integer digits with a sign, and a negative subnormal in exponent form.
  const vector = Float32Array.from([-1.23456789e20, -1.23456789e20, -1.1e-44, -1.23456e-6]);
  const text = written(vector);
  assert.ok(text.length <= vector.length * FLOAT32_JSON_MAX_BYTES, text);
  assert.equal(text.split(',')[0]?.length, 22);
});

test('writeFloat32Json writes from the offset it is given and returns where it stopped', () => {
  const target = Buffer.from('[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
  const end = writeFloat32Json(target, 1, Float32Array.of(0.25, -3));
  assert.equal(target.toString('latin1', 0, end), '[0.25,-3');
  assert.equal(target.toString('latin1', end, end + 2), 'xx');
});
