export type Schema = Record<string, unknown> | boolean;

/** Optional parts (properties, a second array item) are added only when their smallest instance is this small. */
export const SMALL_OPTIONAL_VALUES = 20;

/** What the object and array builders need from the sampler that drives them. */
export interface SampleContext {
  /**
   * A value for the schema, checked and retried where the schema asks for that; a firstAttempt
   * past 0 starts from other choices (to draw a value different from one drawn before).
   */
  sample(schema: Schema, depth: number, firstAttempt?: number): unknown;
  /** The next number of the request's deterministic sequence, in [0, 1). */
  pick(): number;
  /** Whether optional parts may still be added (few values built so far, shallow enough). */
  generous(depth: number): boolean;
  /** Values the smallest instance of the schema needs (Infinity: no finite one). */
  smallest(schema: Schema): number;
  /** One schema asking for what both ask for, remembered for checks. */
  merge(a: Schema, b: Schema): Schema;
  /**
   * Whether the value satisfies the schema, by the gateway's own rules; `assumed` once the
   * answer's budget of checks is spent (the caller says which guess keeps it cheapest).
   */
  check(schema: Schema, value: unknown, assumed: boolean): boolean;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
