/**
 * What `not: {<one bound>}` asks for, as bounds the builders honour by construction:
 * `not: {maxLength: 3}` is a string of at least 4 characters, `not: {minimum: 0}` a number below
 * 0. A value of another type never passes such a `not` (the bound ignores it, so `not` fails), hence
 * the type. Undefined for any other `not`, which is left to the checks.
 */
export function complementsOf(not: unknown): Record<string, unknown>[] {
  // Neither A nor B (two merged `not`s): the complement of each.
  const anyOf = typeof not === 'object' && not !== null ? (not as Record<string, unknown>).anyOf : undefined;
  const parts = Array.isArray(anyOf) && Object.keys(not as object).length === 1 ? anyOf : [not];
  return parts.map(complementOf).filter((part) => part !== undefined);
}

function complementOf(not: unknown): Record<string, unknown> | undefined {
  if (typeof not !== 'object' || not === null || Array.isArray(not)) return undefined;
  const entries = Object.entries(not);
  if (entries.length !== 1) return undefined;
  const [key, bound] = entries[0] as [string, unknown];
  if (typeof bound !== 'number') return undefined;
  switch (key) {
    case 'maxLength':
      return { type: 'string', minLength: bound + 1 };
    case 'minLength':
      return bound > 0 ? { type: 'string', maxLength: bound - 1 } : undefined;
    case 'maximum':
      return { type: 'number', exclusiveMinimum: bound };
    case 'minimum':
      return { type: 'number', exclusiveMaximum: bound };
    case 'exclusiveMaximum':
      return { type: 'number', minimum: bound };
    case 'exclusiveMinimum':
      return { type: 'number', maximum: bound };
    case 'maxItems':
      return { type: 'array', minItems: bound + 1 };
    case 'minItems':
      return bound > 0 ? { type: 'array', maxItems: bound - 1 } : undefined;
    case 'maxProperties':
      return { type: 'object', minProperties: bound + 1 };
    case 'minProperties':
      return bound > 0 ? { type: 'object', maxProperties: bound - 1 } : undefined;
    default:
      return undefined;
  }
}
