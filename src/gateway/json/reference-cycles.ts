import { type LocalReferences, referencedSchemas } from './local-references.ts';
import { schemaError } from './schema-error.ts';

/** Keywords that apply a subschema to the same instance, not to a part of it. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_SINGLES = ['not', 'if', 'then', 'else'] as const;

/**
 * Refuses a schema in which references lead back to where they started without descending into
 * the instance (`{"$ref": "#"}`, or `a` → allOf → `b` → `$ref a`): checking any instance against
 * it never ends (it overflowed the stack: a 500). Cycles that pass through `properties`, `items`
 * and the like are fine, since each turn consumes a level of the instance.
 */
export function assertNoInPlaceCycle(references: LocalReferences): void {
  const state = new Map<object, 'open' | 'done'>();
  const root = references.root;
  if (typeof root !== 'object' || root === null) return;
  // Every subschema could start a cycle: $defs are reached only through references.
  const starts: object[] = [];
  collectObjects(root, starts);
  for (const start of starts) {
    if (state.has(start)) continue;
    const stack: { node: object; next: unknown[] }[] = [
      { node: start, next: inPlaceChildren(start, references) },
    ];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: object; next: unknown[] };
      const child = top.next.pop();
      if (child === undefined) {
        state.set(top.node, 'done');
        stack.pop();
        continue;
      }
      if (typeof child !== 'object' || child === null) continue;
      const seen = state.get(child);
      if (seen === 'open') {
        throw schemaError(
          'references form a cycle that never descends into the instance, so validation would never end',
          `/schema${references.pointerOf(child)}`,
        );
      }
      if (seen === 'done') continue;
      state.set(child, 'open');
      stack.push({ node: child, next: inPlaceChildren(child, references) });
    }
  }
}

function inPlaceChildren(node: object, references: LocalReferences): unknown[] {
  if (Array.isArray(node)) return [];
  const schema = node as Record<string, unknown>;
  const children: unknown[] = referencedSchemas(schema, references);
  for (const keyword of IN_PLACE_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) children.push(...list);
  }
  for (const keyword of IN_PLACE_SINGLES) if (schema[keyword] !== undefined) children.push(schema[keyword]);
  const dependent = schema.dependentSchemas;
  if (typeof dependent === 'object' && dependent !== null) children.push(...Object.values(dependent));
  return children;
}

/** Keywords whose values are instances, not schemas: a `$ref` inside them is data. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

function collectObjects(root: object, into: object[]): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    into.push(node);
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null && !DATA_KEYWORDS.has(key)) stack.push(child);
    }
  }
}
