/**
 * Fixed bounds on callers' JSON Schemas, so that no schema costs more than a few milliseconds to
 * check, compile, sample or validate against. Each is documented in docs/operations.md
 * ("Limits on request content"). Schema size and depth are configurable (json.maxSchemaBytes,
 * json.maxSchemaDepth); these are not, because no legitimate structured-output schema is near them.
 */

/** Longest `pattern` (or patternProperties key): RE2 compiles in time and memory linear in it. */
export const MAX_PATTERN_CHARS = 1000;

/**
 * Largest value of a keyword that forces an instance to be big. A model answer of 10,000
 * characters in one string, or 1,000 array items or properties, is already far past what
 * structured output is used for; the cap stops one keyword from asking for megabytes.
 */
export const MAX_FORCED_SIZE: Readonly<Record<string, number>> = {
  minLength: 10_000,
  minItems: 1_000,
  minProperties: 1_000,
  minContains: 1_000,
};

/**
 * Most JSON values (objects, arrays, scalars) that the smallest valid instance may need. Required
 * properties, minItems and minProperties multiply through nesting and `$ref`s, so a 1 kB schema
 * can demand billions of values, or an infinite instance; no model could answer it, and the
 * simulated provider could not build the answer in bounded time.
 */
export const MAX_REQUIRED_VALUES = 10_000;
