import { complementsOf } from './complement-bound.ts';
import type { Schema } from './sample-context.ts';

export interface FlattenContext {
  pick(): number;
  smallest(schema: Schema): number;
  merge(a: Schema, b: Schema): Schema;
  /** The subschema a local `$ref` names (undefined: none). */
  resolve(ref: string): unknown;
  /** Records that `derived` is `source` with a keyword taken out, for checks. */
  derive(derived: Schema, source: Schema): void;
}

export interface Flattened {
  schema: Schema;
  /** Whether a choice was made (anyOf, oneOf, if): the result then needs checking. */
  chose: boolean;
}

/**
 * One schema without $ref, allOf, anyOf, oneOf or if/then/else, for the attempt-th candidate.
 * anyOf and oneOf take, on attempt 0, the branch with the smallest instance (which also ends
 * recursion through them), later a branch at random; `if` takes `if` and `then` on attempt 0
 * (unless `then` is false), later a side at random. A `not` of one bound becomes the opposite bound (complement-bound.ts); any
 * other `not` stays, left to the builders' hints and the check.
 */
export function flattenSchema(
  input: Schema,
  context: FlattenContext,
  attempt: number,
  maxSteps: number,
): Flattened {
  let schema: Schema = input;
  let chose = false;
  // Each step removes one combinator or reference; in-place cycles were refused by the
  // gateway, and this bound keeps a schema that was not checked from looping.
  for (let step = 0; step < maxSteps && typeof schema === 'object'; step++) {
    if (typeof schema.$ref === 'string') {
      const { $ref, ...rest } = schema;
      context.derive(rest, schema);
      const target = context.resolve($ref);
      schema = target === undefined ? rest : context.merge(rest, target as Schema);
      continue;
    }
    if ('if' in schema) {
      const { if: condition, then: onTrue = true, else: onFalse = true, ...rest } = schema;
      context.derive(rest, schema);
      chose = true;
      // Attempt 0 takes `then` unless it is false; later ones choose at random (ifs nest, and
      // each needs its own side).
      const thenSide = onTrue !== false && (onFalse === false || attempt === 0 || context.pick() < 0.5);
      const taken = thenSide ? context.merge(condition as Schema, onTrue as Schema) : (onFalse as Schema);
      schema = context.merge(rest, taken);
      continue;
    }
    // Choices before allOf: a part's anyOf merged into a schema that has one already is kept
    // beside it in allOf, and taking the branch first is what makes each step remove one.
    const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
    if (key !== undefined) {
      const { [key]: branches, ...rest } = schema;
      context.derive(rest, schema);
      chose = true;
      schema = context.merge(rest, chooseBranch(branches as Schema[], context, attempt));
      continue;
    }
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      context.derive(rest, schema);
      schema = (allOf as Schema[]).reduce<Schema>((merged, part) => context.merge(merged, part), rest);
      continue;
    }
    const complements = complementsOf(schema.not);
    return {
      schema: complements.reduce<Schema>((merged, part) => context.merge(merged, part), schema),
      chose,
    };
  }
  return { schema, chose };
}

function chooseBranch(branches: readonly Schema[], context: FlattenContext, attempt: number): Schema {
  const finite = branches.filter((branch) => context.smallest(branch) < Number.POSITIVE_INFINITY);
  const choices = finite.length > 0 ? finite : branches;
  if (attempt > 0) return choices[Math.floor(context.pick() * choices.length)] ?? true;
  let best: Schema = choices[0] ?? true;
  for (const branch of choices) if (context.smallest(branch) < context.smallest(best)) best = branch;
  return best;
}
