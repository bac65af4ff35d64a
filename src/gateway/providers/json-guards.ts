/**
 * Small checks for upstream JSON, shared by every adapter: data from an upstream is `unknown`
 * until proven otherwise. They never throw: the caller decides whether a missing field is fatal
 * (`invalid_response`) or merely absent.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A token count: a non-negative integer, else undefined. */
export function asCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
