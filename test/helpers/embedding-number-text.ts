import fc from 'fast-check';

/**
 * Numbers as an upstream may write them in an embedding: doubles and float32 values printed by
 * JavaScript, exponents of any length, and spellings a parse would not keep (`-0`, `1E+2`, 30
 * digits). All lie below 10^38 in magnitude, JsonNumberArray's bound; with `pastBounds`, now and
 * then one does not, and the whole-body parse must read that vector instead.
 */
export function embeddingNumberText(options: { pastBounds?: boolean } = {}): fc.Arbitrary<string> {
  const withinBounds = [
    {
      weight: 4,
      arbitrary: fc.double({ noNaN: true, min: -1e37, max: 1e37 }).map((x) => JSON.stringify(x)),
    },
    { weight: 4, arbitrary: fc.float({ noNaN: true, min: -1, max: 1 }).map((x) => String(x)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.double({ noNaN: true, min: -1e37, max: 1e37 }), fc.nat(20))
        .map(([x, digits]) => x.toExponential(digits)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '-0',
        '0',
        '-0.0e-0',
        '1E+2',
        '5e-324',
        '1e-400',
        '123456789012345678901234567890',
        '0.1000000000000000055511151231257827',
      ),
    },
  ];
  if (options.pastBounds !== true) return fc.oneof(...withinBounds);
  return fc.oneof(...withinBounds, {
    weight: 1,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  });
}
