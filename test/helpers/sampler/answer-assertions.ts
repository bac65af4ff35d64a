import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/gateway/domain/hash-seed.ts';
import { SchemaCompiler } from '../../../src/gateway/json/schema-compiler.ts';
import { sampleFromSchema } from '../../../src/gateway/providers/simulated/sample-from-schema.ts';

/** The gateway's own compiler: what it accepts, the simulated answer must satisfy. */
export const gatewayCompiler = new SchemaCompiler({
  maxAttempts: 3,
  maxSchemaBytes: 64 * 1024,
  maxSchemaDepth: 48,
  schemaCacheSize: 10,
});

/** Asserts that the answers for several seeds validate (the provider's seed comes from the request). */
export function assertAnswers(schema: Record<string, unknown> | boolean, seeds = 5): void {
  const compiled = gatewayCompiler.compile(schema);
  for (let seed = 1; seed <= seeds; seed++) {
    const value = sampleFromSchema(schema, seededRandom(seed));
    assert.deepEqual(
      compiled.validate(value),
      [],
      `seed ${seed}: ${JSON.stringify(value)} fails ${JSON.stringify(schema)}`,
    );
  }
}

/** `{if, then, else?}`: a literal `then` key reads as a thenable to linters. */
export function conditional(condition: unknown, onTrue: unknown, onFalse?: unknown): Record<string, unknown> {
  const entries: [string, unknown][] = [
    ['if', condition],
    ['then', onTrue],
  ];
  if (onFalse !== undefined) entries.push(['else', onFalse]);
  return Object.fromEntries(entries);
}
