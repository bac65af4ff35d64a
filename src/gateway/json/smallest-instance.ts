import { type LocalReferences, referencedSchemas } from './local-references.ts';

/**
 * How many JSON values (each object, array and scalar counts one) the smallest instance of each
 * subschema needs, as the simulated provider builds instances: required properties, minItems,
 * minProperties and minContains multiply through nesting and references. Infinity when no
 * finite instance of that shape exists (a required property that refers back to its object).
 * Values are capped at `cap`: past it the exact figure no longer matters.
 *
 * Computed as a fixed point: every size starts at Infinity and only decreases, round after round,
 * until no size changes. Rounds sweep the subschemas forwards then backwards, so chains of
 * references settle in a round or two whichever way they point; a schema still unsettled after
 * MAX_ROUNDS (references zig-zagging through hundreds of definitions) is reported as such, which
 * keeps the analysis linear in the schema's size.
 */
/** Sweeps over the schema before giving up; each costs one pass over its subschemas. */
const MAX_ROUNDS = 32;

export class SmallestInstance {
  readonly #sizes = new Map<object, number>();
  readonly #references: LocalReferences;
  readonly #cap: number;
  /** False when MAX_ROUNDS passed before the sizes settled: they are then over-estimates. */
  readonly settled: boolean;

  constructor(references: LocalReferences, cap: number) {
    this.#references = references;
    this.#cap = cap;
    const schemas = collectSchemaObjects(references.root);
    let changed = true;
    for (let round = 0; changed && round < MAX_ROUNDS; round++) {
      changed = false;
      const order = round % 2 === 0 ? schemas : [...schemas].reverse();
      for (const schema of order) {
        const size = Math.min(this.#cap, this.#compute(schema));
        if (size < (this.#sizes.get(schema) ?? Number.POSITIVE_INFINITY)) {
          this.#sizes.set(schema, size);
          changed = true;
        }
      }
    }
    this.settled = !changed;
  }

  /** Values the smallest instance of this subschema needs (Infinity: none is finite). */
  of(schema: unknown): number {
    if (schema === true || schema === undefined) return 1;
    if (typeof schema !== 'object' || schema === null) return Number.POSITIVE_INFINITY;
    return this.#sizes.get(schema) ?? Number.POSITIVE_INFINITY;
  }

  #compute(schema: Record<string, unknown>): number {
    let size = 'const' in schema || Array.isArray(schema.enum) ? 1 : this.#byType(schema);
    for (const target of referencedSchemas(schema, this.#references)) size = Math.max(size, this.of(target));
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) size = Math.max(size, this.of(part));
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (Array.isArray(branches) && branches.length > 0) {
        size = Math.max(size, Math.min(...branches.map((branch) => this.of(branch))));
      }
    }
    return size;
  }

  #byType(schema: Record<string, unknown>): number {
    const types = typesOf(schema);
    let smallest = Number.POSITIVE_INFINITY;
    for (const type of types) {
      const size =
        type === 'object' ? this.#objectSize(schema) : type === 'array' ? this.#arraySize(schema) : 1;
      smallest = Math.min(smallest, size);
    }
    return smallest;
  }

  #objectSize(schema: Record<string, unknown>): number {
    const properties = asRecord(schema.properties);
    const required = Array.isArray(schema.required) ? [...new Set(schema.required as unknown[])] : [];
    // A required name that patternProperties may cover: count it as one value, a lower bound.
    const unlisted = schema.patternProperties === undefined ? (schema.additionalProperties ?? true) : true;
    let size = 1;
    for (const name of required) {
      size += this.of(
        typeof name === 'string' && Object.hasOwn(properties, name) ? properties[name] : unlisted,
      );
    }
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const extra = Math.max(0, minProperties - required.length);
    if (extra === 0) return size;
    // Further properties come from the cheapest listed optional ones, then from unlisted names
    // (with additionalProperties false, only listed ones can make up minProperties).
    const optional = Object.keys(properties)
      .filter((name) => !required.includes(name))
      .map((name) => this.of(properties[name]))
      .sort((a, b) => a - b);
    const unlistedSize = this.of(unlisted);
    for (let index = 0; index < extra && size < this.#cap; index++) {
      size += Math.min(optional[index] ?? Number.POSITIVE_INFINITY, unlistedSize);
    }
    return size;
  }

  #arraySize(schema: Record<string, unknown>): number {
    const prefix = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : [];
    const rest = Array.isArray(schema.items) ? (schema.additionalItems ?? true) : (schema.items ?? true);
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const minContains =
      schema.contains === undefined ? 0 : typeof schema.minContains === 'number' ? schema.minContains : 1;
    const count = Math.max(minItems, minContains);
    let size = 1;
    for (let index = 0; index < count && size < this.#cap; index++) {
      size += this.of(index < prefix.length ? prefix[index] : rest);
    }
    return size;
  }
}

const ALL_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

/** The types an instance may take; an untyped schema with object or array keywords builds that shape. */
export function typesOf(schema: Record<string, unknown>): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type))
    return schema.type.filter((type): type is string => typeof type === 'string');
  if (schema.properties !== undefined || schema.required !== undefined) return ['object'];
  if (schema.items !== undefined || schema.prefixItems !== undefined) return ['array'];
  return ALL_TYPES;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

function collectSchemaObjects(root: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) found.push(node as Record<string, unknown>);
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null && !DATA_KEYWORDS.has(key)) stack.push(child);
    }
  }
  return found;
}
