import { explainUnsupportedPattern } from './linear-regexp.ts';
import { childPointer, schemaError } from './schema-error.ts';
import { MAX_FORCED_SIZE, MAX_PATTERN_CHARS } from './schema-limits.ts';

const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

/**
 * Checks nesting depth before anything recursive (JSON.stringify, Ajv) touches the schema: a
 * schema nested 5,000 levels overflows the stack in JSON.stringify. Iterative, no allocation per
 * node beyond the stack itself.
 */
export function assertDepthWithin(schema: unknown, maxDepth: number): void {
  const nodes: unknown[] = [schema];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) throw schemaError(`schema is nested deeper than ${maxDepth} levels`);
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
}

/**
 * Walks the schema once and refuses what would cost unbounded time later: remote references,
 * patterns RE2 cannot run, and size keywords past MAX_FORCED_SIZE. Depth is already bounded.
 */
export function inspectSchema(schema: unknown): void {
  const stack: { node: unknown; path: string }[] = [{ node: schema, path: '/schema' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: unknown; path: string };
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) inspectKeywords(node as Record<string, unknown>, path);
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null)
        stack.push({ node: child, path: childPointer(path, key) });
    }
  }
}

function inspectKeywords(record: Record<string, unknown>, path: string): void {
  for (const key of REFERENCE_KEYWORDS) {
    const ref = record[key];
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      throw schemaError('only local references (starting with #) are allowed', childPointer(path, key));
    }
  }
  if (typeof record.pattern === 'string') assertPattern(record.pattern, childPointer(path, 'pattern'));
  const patternProperties = record.patternProperties;
  if (
    typeof patternProperties === 'object' &&
    patternProperties !== null &&
    !Array.isArray(patternProperties)
  ) {
    const base = childPointer(path, 'patternProperties');
    for (const pattern of Object.keys(patternProperties)) assertPattern(pattern, childPointer(base, pattern));
  }
  for (const [keyword, limit] of Object.entries(MAX_FORCED_SIZE)) {
    const value = record[keyword];
    if (typeof value === 'number' && value > limit) {
      throw schemaError(`${keyword} may be at most ${limit}`, childPointer(path, keyword));
    }
  }
}

function assertPattern(pattern: string, path: string): void {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw schemaError(`pattern is longer than ${MAX_PATTERN_CHARS} characters`, path);
  }
  const problem = explainUnsupportedPattern(pattern);
  if (problem !== undefined) throw schemaError(problem, path);
}
