import { EXTRA_CONTAINS } from './merge-schemas.ts';
import { numberOr, type SampleContext, type Schema, SMALL_OPTIONAL_VALUES } from './sample-context.ts';

/** Resamples of an item that must differ from the ones before it, or must not match `contains`. */
const ITEM_TRIES = 16;

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
  const requirements = containsRequirements(schema);
  const minContains = requirements.reduce((sum, requirement) => sum + requirement.min, 0);
  const min = Math.max(numberOr(schema.minItems, 0), minContains);
  // Items past the prefix that no value satisfies (items: false) cap the length at the prefix.
  const max = Math.min(
    numberOr(schema.maxItems, Number.POSITIVE_INFINITY),
    rest === false ? prefix.length : Number.POSITIVE_INFINITY,
  );
  const itemSchema = (index: number): Schema => (index < prefix.length ? (prefix[index] as Schema) : rest);
  let length = min;
  if (attempt > 0) length = min + Math.floor(context.pick() * (Math.min(max, min + 3) - min + 1));
  else if (context.generous(depth) && context.smallest(rest) <= SMALL_OPTIONAL_VALUES)
    length = Math.max(min, Math.min(2, max));
  // Room to place the items `contains` asks for where the item schemas admit them.
  const limit = Math.min(max, Math.max(length, prefix.length + minContains));
  const counts = requirements.map(() => 0);
  const result: unknown[] = [];
  const seen = new Set<string>();
  const unique = schema.uniqueItems === true;
  const fresh = (value: unknown): boolean => !unique || !seen.has(JSON.stringify(value));
  for (let index = 0; index < length; index++) {
    const item = itemSchema(index);
    // An item that matches a `contains` still short of its minContains, where this position
    // admits one; else an item that matches no `contains` already at its maxContains.
    let value: unknown;
    let placed = false;
    // Odd attempts place them only once the positions left are just enough: the items built
    // anyway may match (a prefix item that must be null, where `contains` asks for a null).
    const missing = requirements.reduce(
      (sum, r, which) => sum + Math.max(0, r.min - (counts[which] as number)),
      0,
    );
    const placeNow = attempt % 2 === 0 || length - index <= missing;
    for (const [which, requirement] of requirements.entries()) {
      if (!placeNow || (counts[which] as number) >= requirement.min) continue;
      const candidate = context.sample(context.merge(item, requirement.schema), depth + 1, attempt);
      if (
        fresh(candidate) &&
        context.check(item, candidate, true) &&
        context.check(requirement.schema, candidate, true)
      ) {
        value = candidate;
        placed = true;
        break;
      }
    }
    const acceptable = (candidate: unknown): boolean =>
      fresh(candidate) &&
      requirements.every(
        (requirement, which) =>
          requirement.max === undefined ||
          (counts[which] as number) < requirement.max ||
          !context.check(requirement.schema, candidate, false),
      );
    if (!placed) {
      value = context.sample(item, depth + 1);
      for (let tries = 1; tries <= ITEM_TRIES && !acceptable(value); tries++)
        value = context.sample(item, depth + 1, tries);
      if (!acceptable(value) && index >= min) break;
    }
    for (const [which, requirement] of requirements.entries())
      if (context.check(requirement.schema, value, true)) counts[which] = (counts[which] as number) + 1;
    if (unique) seen.add(JSON.stringify(value));
    result.push(value);
    const unmet = requirements.some((requirement, which) => (counts[which] as number) < requirement.min);
    if (unmet && index === length - 1 && length < limit) length++;
  }
  return result;
}

interface ContainsRequirement {
  schema: Schema;
  min: number;
  max: number | undefined;
}

/** The schema's `contains`, and those allOf parts brought (kept apart by mergeSchemas). */
function containsRequirements(schema: Record<string, unknown>): ContainsRequirement[] {
  const parts = [schema, ...((schema[EXTRA_CONTAINS] as Record<string, unknown>[] | undefined) ?? [])];
  return parts
    .filter((part) => part.contains !== undefined)
    .map((part) => ({
      schema: part.contains as Schema,
      min: numberOr(part.minContains, 1),
      max: part.maxContains as number | undefined,
    }));
}
