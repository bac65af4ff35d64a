import { hash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import safeRegex from 'safe-regex2';
import type { JsonOutputSettings } from '../../config/config-types.ts';
import { ApiError, type FieldIssue } from '../../platform/errors.ts';
import { toFieldIssues } from '../../platform/validation-issues.ts';

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
 * once, and caches them by content hash. Hostile schemas are refused with a 400 before Ajv
 * sees them: too large, too deep, remote references, or regular expressions open to ReDoS.
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
    const options = { strict: false, allErrors: true, validateFormats: true, logger: false as const };
    this.#draft2020 = new Ajv2020(options);
    this.#draft07 = new Ajv(options);
    addFormats.default(this.#draft2020);
    addFormats.default(this.#draft07);
  }

  compile(schema: unknown): CompiledSchema {
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
    inspectSchema(schema, this.#settings.maxSchemaDepth);
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
      validate: (value) => (validate(value) ? [] : toFieldIssues(validate.errors)),
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

function schemaError(message: string, path = '/schema'): ApiError {
  return new ApiError('invalid_request', 'schema is not a usable JSON Schema', {
    details: [{ path, message }],
  });
}

/** Walks the schema once: bounds its depth, refuses remote $ref and unsafe patterns. */
function inspectSchema(schema: unknown, maxDepth: number): void {
  const stack: { node: unknown; depth: number; path: string }[] = [
    { node: schema, depth: 0, path: '/schema' },
  ];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop() as { node: unknown; depth: number; path: string };
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) throw schemaError(`schema is nested deeper than ${maxDepth} levels`, path);
    const record = node as Record<string, unknown>;
    for (const key of ['$ref', '$dynamicRef', '$recursiveRef'] as const) {
      const ref = record[key];
      if (typeof ref === 'string' && !ref.startsWith('#')) {
        throw schemaError('only local references (starting with #) are allowed', `${path}/${key}`);
      }
    }
    if (typeof record.pattern === 'string' && !isSafePattern(record.pattern)) {
      throw schemaError('pattern is too complex (risk of catastrophic backtracking)', `${path}/pattern`);
    }
    if (
      typeof record.patternProperties === 'object' &&
      record.patternProperties !== null &&
      !Array.isArray(record)
    ) {
      for (const pattern of Object.keys(record.patternProperties)) {
        if (!isSafePattern(pattern)) {
          throw schemaError(
            'pattern is too complex (risk of catastrophic backtracking)',
            `${path}/patternProperties`,
          );
        }
      }
    }
    for (const [key, child] of Object.entries(record)) {
      if (typeof child === 'object' && child !== null)
        stack.push({ node: child, depth: depth + 1, path: `${path}/${key}` });
    }
  }
}

function isSafePattern(pattern: string): boolean {
  if (pattern.length > 1000) return false;
  try {
    return safeRegex(pattern);
  } catch {
    return false;
  }
}
