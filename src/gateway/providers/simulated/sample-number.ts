/** Candidate multiples tried when floating point puts k × multipleOf just off the multiple. */
const MULTIPLE_TRIES = 16;

/** Integers tried for an integer whose multipleOf is fractional: 2.5 needs one in 2, 0.001 any. */
const INTEGER_TRIES = 64;

/** A number (or integer) within the bounds and a multiple of `multipleOf` where one exists. */
export function sampleNumber(schema: Record<string, unknown>, integer: boolean): number {
  const num = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  let low = num('minimum') ?? Number.NEGATIVE_INFINITY;
  let high = num('maximum') ?? Number.POSITIVE_INFINITY;
  // draft-07 and 2020-12 spell exclusive bounds differently; both are honoured.
  const exclusiveMin =
    num('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? num('minimum') : undefined);
  const exclusiveMax =
    num('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? num('maximum') : undefined);
  const step = num('multipleOf');
  const within = (value: number): boolean =>
    value >= low &&
    value <= high &&
    (exclusiveMin === undefined || value > exclusiveMin) &&
    (exclusiveMax === undefined || value < exclusiveMax) &&
    (!integer || Number.isInteger(value)) &&
    (step === undefined || Number.isInteger(value / step));
  if (exclusiveMin !== undefined) low = Math.max(low, exclusiveMin);
  if (exclusiveMax !== undefined) high = Math.min(high, exclusiveMax);
  let target = 1;
  if (Number.isFinite(low) && Number.isFinite(high)) target = low + (high - low) / 2;
  else if (Number.isFinite(low)) target = low + 1;
  else if (Number.isFinite(high)) target = Math.min(high - 1, 0);
  if (step === undefined) {
    if (!integer) return target;
    const rounded = Math.round(target);
    return within(rounded) ? rounded : within(Math.ceil(target)) ? Math.ceil(target) : Math.floor(target);
  }
  const base = Math.round(target / step);
  for (let offset = 0; offset < MULTIPLE_TRIES; offset++) {
    for (const k of [base + offset, base - offset]) {
      const value = k * step;
      if (within(value)) return value;
    }
  }
  // An integer with a fractional multipleOf (0.01, 2.5): look among the integers instead.
  if (integer) {
    const start = Math.round(target);
    for (let offset = 0; offset < INTEGER_TRIES; offset++) {
      for (const value of [start + offset, start - offset]) if (within(value)) return value;
    }
  }
  return base * step;
}
