/** Candidate multiples tried when floating point puts k × multipleOf just off the multiple. */
const MULTIPLE_TRIES = 16;

/** Integers tried for an integer whose multipleOf is fractional: 2.5 needs one in 2, 0.001 any. */
const INTEGER_TRIES = 64;

/**
 * A number (or integer) within the bounds and a multiple of `multipleOf` where one exists.
 * Attempt 0 aims at the middle of the range (or 1); later attempts (retries after a `not`, a
 * `oneOf` or an `if` rejected a candidate) aim at a random point, fractional for `number`.
 */
export function sampleNumber(
  schema: Record<string, unknown>,
  integer: boolean,
  pick: () => number,
  attempt = 0,
): number {
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
  if (attempt > 0) target = varyTarget(target, low, high, pick, attempt);
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

/** A random point inside the bounds, spread wider on each attempt (1, 10, 100, … around target). */
function varyTarget(target: number, low: number, high: number, pick: () => number, attempt: number): number {
  if (Number.isFinite(low) && Number.isFinite(high)) {
    // Every integer of a short range in turn (a `not` may rule out all but one), else at random.
    const width = Math.floor(high) - Math.ceil(low) + 1;
    if (width <= 64 && attempt % 2 === 1) return Math.ceil(low) + (((attempt - 1) / 2) % width);
    return low + pick() * (high - low);
  }
  const spread = 10 ** (attempt % 7);
  const offset = pick() * spread;
  if (Number.isFinite(low)) return low + offset;
  if (Number.isFinite(high)) return high - offset;
  return target + (pick() < 0.5 ? -offset : offset);
}
