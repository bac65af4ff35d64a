import { numberOr, type SampleContext, type Schema } from './sample-context.ts';

/** Resamples of an item that must differ from the ones before it, or must not match `contains`. */
const ITEM_TRIES = 8;

/**
 * An array for a flattened schema: prefixItems (or draft-07's array `items`), items,
 * additionalItems, unevaluatedItems, min/maxItems, contains with min/maxContains, uniqueItems.
 * Attempt 0 gives the usual answer; later attempts vary the length.
 */
export function sampleArray(
  context: SampleContext,
  schema: Record<string, unknown>,
  depth: number,
  attempt: number,
): unknown[] {
  const draft07Items = Array.isArray(schema.items);
  const prefix = (
    Array.isArray(schema.prefixItems) ? schema.prefixItems : draft07Items ? schema.items : []
  ) as Schema[];
  const rest = (
    draft07Items
      ? (schema.additionalItems ?? schema.unevaluatedItems ?? true)
      : (schema.items ?? schema.unevaluatedItems ?? true)
  ) as Schema;
  const contains = schema.contains as Schema | undefined;
  const minContains = contains === undefined ? 0 : numberOr(schema.minContains, 1);
  const maxContains = contains === undefined ? undefined : (schema.maxContains as number | undefined);
  const min = Math.max(numberOr(schema.minItems, 0), minContains);
  const max = numberOr(schema.maxItems, Number.POSITIVE_INFINITY);
  const itemSchema = (index: number): Schema => (index < prefix.length ? (prefix[index] as Schema) : rest);
  let length = min;
  if (attempt > 0) length = min + Math.floor(context.pick() * (Math.min(max, min + 3) - min + 1));
  else if (context.generous(depth) && context.smallest(rest) <= 20) length = Math.max(min, Math.min(2, max));
  const result: unknown[] = [];
  const seen = new Set<string>();
  const unique = schema.uniqueItems === true;
  for (let index = 0; index < length; index++) {
    // The first minContains items are built to match `contains`; the others, when maxContains
    // caps the matches, are resampled until they do not.
    const matching = index < minContains && contains !== undefined;
    const wanted = matching ? context.merge(itemSchema(index), contains) : itemSchema(index);
    const acceptable = (value: unknown): boolean =>
      (!unique || !seen.has(JSON.stringify(value))) &&
      (matching || maxContains === undefined || contains === undefined || !context.check(contains, value));
    let value = context.sample(wanted, depth + 1);
    for (let tries = 1; tries <= ITEM_TRIES && !acceptable(value); tries++)
      value = context.sample(wanted, depth + 1, tries);
    if (!acceptable(value) && index >= min) break;
    if (unique) seen.add(JSON.stringify(value));
    result.push(value);
  }
  return result;
}
