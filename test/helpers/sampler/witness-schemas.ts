import fc from 'fast-check';
import { conditional } from './answer-assertions.ts';
import { canonical, escapePattern, FORMATTED, otherType, typeName, witnessArb } from './witness-values.ts';

/**
 * Random JSON Schemas that are satisfiable by construction: each is built around a generated
 * instance (its witness) from keywords that instance satisfies, so a sampler failure on one is
 * the sampler's fault, never an impossible schema's. Covers types, lengths, pattern, format,
 * bounds, multipleOf, const, enum, the combinators, if/then/else, $ref, prefixItems, contains,
 * uniqueItems, properties and their relatives, dependencies, unevaluated*, in both dialects.
 */
export type Dialect = '2020-12' | 'draft-07';
type Schema = Record<string, unknown> | boolean;

/** Keeps the keys whose flag is set: optional keywords, each present or not. */
function some(entries: [string, unknown][], flags: readonly boolean[]): Record<string, unknown> {
  return Object.fromEntries(entries.filter((_, index) => flags[index]));
}

/** A schema the value satisfies; `budget` bounds how many combinators nest. */
export function schemaFor(value: unknown, dialect: Dialect, budget: number): fc.Arbitrary<Schema> {
  const plain = typedSchema(value, dialect, budget);
  const options: fc.Arbitrary<Schema>[] = [
    plain,
    plain,
    plain,
    fc.constant({ const: value }),
    fc.array(witnessArb, { maxLength: 2 }).map((others) => ({ enum: [...others, value] })),
  ];
  if (budget > 0) options.push(combined(value, dialect, budget - 1));
  return fc.oneof(...options);
}

function combined(value: unknown, dialect: Dialect, budget: number): fc.Arbitrary<Schema> {
  const self = schemaFor(value, dialect, budget);
  const other = witnessArb.filter((candidate) => canonical(candidate) !== canonical(value));
  const notSelf = fc.oneof(
    fc.constant({ type: otherType(value) }),
    other.map((candidate) => ({ const: candidate })),
  );
  return fc.oneof(
    fc.tuple(self, self).map(([a, b]) => ({ allOf: [a, b] })),
    fc
      .tuple(
        self,
        other.chain((o) => schemaFor(o, dialect, 0)),
      )
      .map(([a, b]) => ({ anyOf: [b, a] })),
    fc.tuple(self, notSelf).map(([a, b]) => ({ oneOf: [b, a] })),
    notSelf.map((b) => ({ not: b })),
    fc
      .tuple(
        self,
        other.chain((o) => schemaFor(o, dialect, 0)),
      )
      .map(([a, b]) =>
        conditional({ type: typeName(value) === 'integer' ? 'number' : typeName(value) }, a, b),
      ),
    fc.tuple(self, notSelf).map(([a, b]) => conditional(b, false, a)),
    // Hoisted into $defs (or definitions) by withDefinitions.
    self.map((target) => ({ __define: target })),
  );
}

function typedSchema(value: unknown, dialect: Dialect, budget: number): fc.Arbitrary<Schema> {
  const type = typeName(value);
  if (type === 'string') return stringSchema(value as string);
  if (type === 'integer' || type === 'number') return numberSchema(value as number);
  if (type === 'array') return arraySchema(value as unknown[], dialect, budget);
  if (type === 'object') return objectSchema(value as Record<string, unknown>, dialect, budget);
  return fc.constant({ type });
}

function stringSchema(text: string): fc.Arbitrary<Schema> {
  const length = [...text].length;
  const format = FORMATTED.find(([, sample]) => sample === text)?.[0];
  const patterns = [`^${escapePattern(text)}$`, escapePattern(text.slice(0, 2)), '^.*$'];
  if (/^[a-z]*$/.test(text)) patterns.push('^[a-z]*$');
  if (/^[0-9]{5}$/.test(text)) patterns.push('^[0-9]{5}$', '^\\d+$');
  return fc
    .tuple(
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      fc.nat(length),
      fc.nat(4),
      fc.constantFrom(...patterns),
    )
    .map(([flags, below, above, pattern]) => ({
      type: 'string',
      ...some(
        [
          ['minLength', below],
          ['maxLength', length + above],
          // A format beside a pattern is honoured only where a stock sample of the format
          // matches the pattern (docs/api.md names this limit): then the pattern is a general one.
          ['pattern', format === undefined ? pattern : '^.*$'],
          ['format', format],
          ['not', { maxLength: Math.max(0, below - 1) }],
        ],
        [
          flags[0] ?? false,
          flags[1] ?? false,
          flags[2] ?? false,
          format !== undefined && (flags[3] ?? false),
          below > 0 && (flags[4] ?? false),
        ],
      ),
    }));
}

function numberSchema(n: number): fc.Arbitrary<Schema> {
  const divisors = [2, 3, 5, 0.5, 0.25].filter((d) => Number.isInteger(n / d));
  return fc
    .tuple(
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 1, max: 50 }),
    )
    .map(([flags, below, gap]) => {
      const chosen: [string, unknown][] = [];
      if (flags[0]) chosen.push(['minimum', n - below]);
      if (flags[1]) chosen.push(['maximum', n + below]);
      if (flags[2]) chosen.push(flags[0] ? ['exclusiveMaximum', n + gap] : ['exclusiveMinimum', n - gap]);
      if (flags[3] && divisors.length > 0) chosen.push(['multipleOf', divisors[below % divisors.length]]);
      if (flags[4]) chosen.push(['not', { minimum: n + gap }]);
      return {
        type: Number.isInteger(n) && below % 2 === 0 ? 'integer' : 'number',
        ...Object.fromEntries(chosen),
      };
    });
}

/** One schema every item satisfies: the anyOf of a schema per item. */
function everyItem(items: readonly unknown[], dialect: Dialect, budget: number): fc.Arbitrary<Schema> {
  if (items.length === 0) return fc.constantFrom<Schema>(true, { type: 'string' }, false);
  return fc
    .tuple(...items.map((item) => schemaFor(item, dialect, budget)))
    .map((schemas) => ({ anyOf: schemas }));
}

function arraySchema(items: unknown[], dialect: Dialect, budget: number): fc.Arbitrary<Schema> {
  const texts = items.map(canonical);
  const unique = new Set(texts).size === texts.length;
  return fc
    .record({
      flags: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      prefixLength: fc.nat(items.length),
      prefix: fc.tuple(...items.map((item) => schemaFor(item, dialect, budget))),
      rest: everyItem(items, dialect, budget),
      below: fc.nat(items.length),
      above: fc.nat(3),
      containsAt: fc.nat(Math.max(0, items.length - 1)),
    })
    .map(({ flags, prefixLength, prefix, rest, below, above, containsAt }) => {
      const schema: Record<string, unknown> = { type: 'array' };
      const head = prefix.slice(0, prefixLength);
      // Items past the prefix: the anyOf of them all (it holds for every item).
      const tail = prefixLength === items.length && flags[5] ? false : rest;
      if (flags[0] && head.length > 0) {
        if (dialect === 'draft-07') Object.assign(schema, { items: head, additionalItems: tail });
        else Object.assign(schema, { prefixItems: head, [flags[4] ? 'unevaluatedItems' : 'items']: tail });
      } else if (flags[1]) schema.items = rest;
      if (flags[2]) Object.assign(schema, { minItems: below, maxItems: items.length + above });
      if (flags[3] && unique) schema.uniqueItems = true;
      const target = texts[containsAt];
      if (flags[4] && target !== undefined) {
        const count = texts.filter((text) => text === target).length;
        schema.contains = { const: items[containsAt] };
        if (dialect === '2020-12')
          Object.assign(schema, { minContains: count - (below % 2), maxContains: count });
      }
      return schema;
    });
}

function objectSchema(
  value: Record<string, unknown>,
  dialect: Dialect,
  budget: number,
): fc.Arbitrary<Schema> {
  const keys = Object.keys(value);
  return fc
    .record({
      flags: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      listed: fc.subarray(keys),
      required: fc.subarray(keys),
      schemas: fc.tuple(...keys.map((key) => schemaFor(value[key], dialect, budget))),
      others: everyItem(Object.values(value), dialect, budget),
      below: fc.nat(keys.length),
      above: fc.nat(2),
    })
    .map(({ flags, listed, required, schemas, others, below, above }) => {
      const schema: Record<string, unknown> = { type: 'object' };
      schema.properties = Object.fromEntries(listed.map((key) => [key, schemas[keys.indexOf(key)]]));
      if (required.length > 0 || flags[0]) schema.required = required;
      const unlisted = keys.filter((key) => !listed.includes(key));
      const noneUnlisted = unlisted.length === 0;
      if (flags[1])
        schema[noneUnlisted && flags[2] ? 'unevaluatedProperties' : 'additionalProperties'] = noneUnlisted
          ? false
          : others;
      if (flags[3]) {
        const first = keys[0]?.[0] ?? 'a';
        schema.patternProperties = {
          [`^${first}`]: { anyOf: keys.filter((k) => k.startsWith(first)).map((k) => ({ const: value[k] })) },
        };
      }
      if (flags[4]) schema.propertyNames = flags[2] ? { pattern: '^[a-z]+$' } : { maxLength: 3 };
      if (flags[5]) Object.assign(schema, { minProperties: below, maxProperties: keys.length + above });
      const [a, b] = keys;
      if (flags[6] && a !== undefined && b !== undefined) {
        const names = { [a]: [b], zzzz: ['never'] };
        const dependent = { [b]: { required: [a] }, zzzz: false };
        if (dialect === 'draft-07') schema.dependencies = flags[7] ? names : dependent;
        else schema[flags[7] ? 'dependentRequired' : 'dependentSchemas'] = flags[7] ? names : dependent;
      }
      return schema;
    });
}

/** Moves each `{__define: schema}` into $defs (draft-07: definitions) and refers to it there. */
export function withDefinitions(root: Schema, dialect: Dialect): Schema {
  const definitions: Record<string, Schema> = {};
  const section = dialect === 'draft-07' ? 'definitions' : '$defs';
  const hoist = (node: unknown, inData: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => hoist(item, inData));
    if (typeof node !== 'object' || node === null) return node;
    if (!inData && '__define' in node) {
      const name = `d${Object.keys(definitions).length}`;
      definitions[name] = true; // reserves the name before nested definitions take theirs
      definitions[name] = hoist((node as { __define: unknown }).__define, false) as Schema;
      return { $ref: `#/${section}/${name}` };
    }
    return Object.fromEntries(
      Object.entries(node).map(([key, child]) => [
        key,
        hoist(child, inData || key === 'const' || key === 'enum'),
      ]),
    );
  };
  const hoisted = hoist(root, false) as Schema;
  if (Object.keys(definitions).length === 0) return hoisted;
  const base = typeof hoisted === 'object' ? hoisted : hoisted ? {} : { not: {} };
  return { ...base, [section]: definitions };
}

/** A dialect, a witness and a schema built around it, ready to send. */
export const witnessedSchemaArb = fc
  .tuple(fc.constantFrom<Dialect>('2020-12', 'draft-07'), witnessArb)
  .chain(([dialect, witness]) =>
    schemaFor(witness, dialect, 2).map((schema) => {
      const root = withDefinitions(schema, dialect);
      const tagged =
        dialect === 'draft-07' && typeof root === 'object'
          ? { $schema: 'http://json-schema.org/draft-07/schema#', ...root }
          : root;
      return { dialect, witness, schema: tagged };
    }),
  );
