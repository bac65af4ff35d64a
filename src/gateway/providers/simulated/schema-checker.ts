import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { BoundedCache } from '../../../platform/bounded-cache.ts';
import { linearRegExpEngine } from '../../json/linear-regexp.ts';
import type { LocalReferences } from '../../json/local-references.ts';
import { replaceUniqueItems } from '../../json/unique-items.ts';

type Schema = Record<string, unknown> | boolean;

/** Where the sampler's copy of the caller's schema lives; never fetched, only a name for Ajv. */
const BASE = 'https://simulated.invalid/schema';

/**
 * Checks a value against one subschema of the caller's schema, with the same Ajv settings the
 * gateway validates with (RE2 patterns, formats, linear uniqueItems), so that the sampler can test
 * a candidate where it cannot build one correct by construction (`not`, `oneOf`'s "exactly one",
 * `if`, `propertyNames`, `maxContains`...). A subschema is compiled by its JSON Pointer into the
 * whole schema, so its `$ref`s resolve as they do at the gateway. Schemas the sampler merged
 * itself are checked against every document subschema they came from (recorded in `origins`).
 *
 * Built lazily: the first check of a schema makes an Ajv instance (about 0.5 ms) and each
 * subschema is compiled once (1-2 ms); both are kept for the CACHED_SCHEMAS most recently sampled
 * schemas, so a client sending the same schema again pays nothing. Schemas that need no check
 * never pay for it.
 */
export class SchemaChecker {
  readonly #root: Schema;
  readonly #references: LocalReferences;
  readonly #origins = new WeakMap<object, readonly object[]>();
  #validators: CompiledFragments | undefined;

  constructor(root: Schema, references: LocalReferences) {
    this.#root = root;
    this.#references = references;
  }

  /** Records that `merged` asks for exactly what all of `parts` ask for together. */
  recordMerge(merged: Schema, parts: readonly Schema[]): void {
    if (typeof merged !== 'object') return;
    this.#origins.set(
      merged,
      parts.flatMap((part) => this.originsOf(part)),
    );
  }

  /** The document subschemas whose conjunction is this schema (none: nothing to check). */
  originsOf(schema: Schema): readonly object[] {
    if (typeof schema !== 'object') return [];
    if (this.#references.has(schema)) return [schema];
    return this.#origins.get(schema) ?? [];
  }

  /** Whether the value satisfies the schema; true when the schema cannot be compiled on its own. */
  check(schema: Schema, value: unknown): boolean {
    if (schema === false) return false;
    for (const origin of this.originsOf(schema)) {
      const validate = this.#validatorOf(origin);
      if (validate !== undefined && !passes(validate, value)) return false;
    }
    return true;
  }

  #validatorOf(node: object): ValidateFunction | undefined {
    this.#validators ??= fragmentsOf(this.#root);
    return this.#validators.get(this.#references.pointerOf(node));
  }
}

/**
 * A validator that throws (a subschema Ajv left half-compiled after running out of stack) counts
 * as no check: the gateway still validates the whole answer, so this never lets a wrong answer out.
 */
function passes(validate: ValidateFunction, value: unknown): boolean {
  try {
    return validate(value) === true;
  } catch {
    return true;
  }
}

/** Schemas whose Ajv instance and compiled subschemas are kept, least recently used dropped. */
const CACHED_SCHEMAS = 32;
const cache = new BoundedCache<string, CompiledFragments>(CACHED_SCHEMAS);

function fragmentsOf(root: Schema): CompiledFragments {
  const key = JSON.stringify(root);
  let fragments = cache.get(key);
  if (fragments === undefined) {
    fragments = new CompiledFragments(root);
    cache.set(key, fragments);
  }
  return fragments;
}

/** One schema's Ajv instance and its subschemas compiled by JSON Pointer. */
class CompiledFragments {
  readonly #root: Schema;
  readonly #compiled = new Map<string, ValidateFunction | undefined>();
  #ajv: Ajv | Ajv2020 | undefined;

  constructor(root: Schema) {
    this.#root = root;
  }

  get(pointer: string): ValidateFunction | undefined {
    if (this.#compiled.has(pointer)) return this.#compiled.get(pointer);
    let validate: ValidateFunction | undefined;
    try {
      const fragment = pointer.split('/').map(encodeURIComponent).join('/');
      validate = this.#instance().getSchema(`${BASE}#${fragment}`);
    } catch {
      // A subschema Ajv cannot compile alone (a nested $id it resolves elsewhere, or a reference
      // web deeper than the stack): unchecked; the gateway still validates the whole answer. A
      // failed compile can leave the instance holding half-compiled references, so the next
      // subschema starts from a fresh one.
      validate = undefined;
      this.#ajv = undefined;
      this.#compiled.clear();
    }
    this.#compiled.set(pointer, validate);
    return validate;
  }

  #instance(): Ajv | Ajv2020 {
    if (this.#ajv !== undefined) return this.#ajv;
    const options = {
      strict: false,
      allErrors: false,
      validateFormats: true,
      validateSchema: false,
      logger: false as const,
      code: { regExp: linearRegExpEngine },
    };
    const draft07 = typeof this.#root === 'object' && String(this.#root.$schema).includes('draft-07');
    const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
    addFormats.default(ajv);
    replaceUniqueItems(ajv);
    const root = typeof this.#root === 'object' ? withoutId(this.#root) : this.#root;
    ajv.addSchema(root as object, BASE);
    this.#ajv = ajv;
    return ajv;
  }
}

function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}
