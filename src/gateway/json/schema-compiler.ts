import { hash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonOutputSettings } from '../../config/config-types.ts';
import type { FieldIssue } from '../../platform/errors.ts';
import { toFieldIssues } from '../../platform/validation-issues.ts';
import { assertDepthWithin, inspectSchema } from './inspect-schema.ts';
import { linearRegExpEngine } from './linear-regexp.ts';
import { LocalReferences } from './local-references.ts';
import { assertNoInPlaceCycle } from './reference-cycles.ts';
import { schemaError } from './schema-error.ts';
import { MAX_REQUIRED_VALUES } from './schema-limits.ts';
import { SmallestInstance } from './smallest-instance.ts';
import { replaceUniqueItems } from './unique-items.ts';

const DRAFT_07 = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
]);
const DRAFT_2020 = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

export interface CompiledSchema {
  validate(value: unknown): FieldIssue[];
}

/**
 * Compiles caller-supplied JSON Schemas (2020-12 by default, draft-07 when `$schema` says so)
 * once, and caches them by content hash. Schemas that would cost unbounded time are refused
 * with a 400 before Ajv sees them: too deep or too large, remote references, patterns RE2 cannot
 * run, size keywords past their caps, reference cycles that never descend into the instance, and
 * schemas whose smallest instance needs more than MAX_REQUIRED_VALUES values. Patterns run on
 * RE2, in time linear in the input (see linear-regexp.ts and docs/operations.md).
 */
export class SchemaCompiler {
  readonly #settings: JsonOutputSettings;
  readonly #draft2020: Ajv2020;
  readonly #draft07: Ajv;
  readonly #cache = new Map<string, CompiledSchema>();

  constructor(settings: JsonOutputSettings) {
    this.#settings = settings;
    // strict: false because the spec says unknown keywords are ignored, and callers' schemas
    // carry annotations (title, examples, x-…) that strict mode would reject.
    const options = {
      strict: false,
      allErrors: true,
      validateFormats: true,
      logger: false as const,
      code: { regExp: linearRegExpEngine },
    };
    this.#draft2020 = new Ajv2020(options);
    this.#draft07 = new Ajv(options);
    addFormats.default(this.#draft2020);
    addFormats.default(this.#draft07);
    replaceUniqueItems(this.#draft2020);
    replaceUniqueItems(this.#draft07);
  }

  /** The deepest nesting a schema may have (json.maxSchemaDepth). */
  get maxDepth(): number {
    return this.#settings.maxSchemaDepth;
  }

  compile(schema: unknown): CompiledSchema {
    // Before JSON.stringify, which recurses and overflowed the stack at ~5,000 levels.
    assertDepthWithin(schema, this.#settings.maxSchemaDepth);
    const text = JSON.stringify(schema);
    if (Buffer.byteLength(text) > this.#settings.maxSchemaBytes) {
      throw schemaError(`schema is larger than ${this.#settings.maxSchemaBytes} bytes`);
    }
    const key = cacheKey(text);
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      // Refresh its place: the cache evicts the least recently used entry.
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return cached;
    }
    assertBoundedSchema(schema);
    const compiled = this.#compileFresh(schema as Record<string, unknown> | boolean);
    if (this.#cache.size >= this.#settings.schemaCacheSize) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(key, compiled);
    return compiled;
  }

  #compileFresh(schema: Record<string, unknown> | boolean): CompiledSchema {
    const dialect = typeof schema === 'object' ? schema.$schema : undefined;
    let ajv: Ajv | Ajv2020;
    if (dialect === undefined || (typeof dialect === 'string' && DRAFT_2020.has(dialect)))
      ajv = this.#draft2020;
    else if (typeof dialect === 'string' && DRAFT_07.has(dialect)) ajv = this.#draft07;
    else throw schemaError('$schema must be JSON Schema 2020-12 or draft-07', '/schema/$schema');
    let validate: ValidateFunction;
    try {
      // A schema carrying an $id would be registered globally; compile a copy without it.
      validate = ajv.compile(typeof schema === 'object' ? withoutId(schema) : schema);
    } catch (error) {
      throw schemaError(`schema does not compile: ${(error as Error).message}`);
    }
    return {
      validate: (value) => {
        try {
          return validate(value) ? [] : toFieldIssues(validate.errors);
        } catch (error) {
          // A reference cycle the static check could not see (through a nested $id): report the
          // schema, not a 500.
          if (error instanceof RangeError) throw schemaError('schema recurses without end when validating');
          throw error;
        }
      },
    };
  }
}

/**
 * Schemas up to this many characters are their own cache key: V8 hashes a string key in a
 * fraction of the 1.5-2 µs that SHA-256 through node:crypto costs per request, and the default 500
 * such keys hold at most 2 MB. Larger schemas are keyed by their digest.
 */
const LITERAL_KEY_CHARS = 2048;

function cacheKey(schemaText: string): string {
  // A digest key starts with '#', which no JSON text does.
  return schemaText.length <= LITERAL_KEY_CHARS ? schemaText : `#${hash('sha256', schemaText, 'base64')}`;
}

function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}

/** The checks that need the whole schema; run once per distinct schema, before Ajv compiles it. */
function assertBoundedSchema(schema: unknown): void {
  inspectSchema(schema);
  const references = new LocalReferences(schema);
  assertNoInPlaceCycle(references);
  const smallest = new SmallestInstance(references, MAX_REQUIRED_VALUES + 1);
  if (!smallest.settled) {
    throw schemaError('schema references are chained too intricately to analyse in bounded time');
  }
  if (smallest.of(schema) > MAX_REQUIRED_VALUES) {
    throw schemaError(
      `every valid instance needs more than ${MAX_REQUIRED_VALUES} JSON values (required properties, minItems and minProperties multiply through nesting and $ref, or a required property recurses without end)`,
    );
  }
}
