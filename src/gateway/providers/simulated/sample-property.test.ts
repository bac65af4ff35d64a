import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { gatewayCompiler } from '../../../../test/helpers/sampler/answer-assertions.ts';
import { witnessedSchemaArb } from '../../../../test/helpers/sampler/witness-schemas.ts';
import { seededRandom } from '../../domain/hash-seed.ts';
import { sampleFromSchema } from './sample-from-schema.ts';

/**
 * The sampler's property: for any schema the gateway accepts, the simulated answer validates
 * with the gateway's own compiler. Schemas come satisfiable by construction (witness-schemas.ts).
 * CI runs 2,000 schemas from a fixed seed (about 5 s; the same schemas every run, so CI is
 * not flaky). FUZZ_RUNS runs that many from a random seed (printed on failure); FUZZ_SEED
 * replays one.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const CI_SEED = 20_261_125;
const SEED =
  process.env.FUZZ_SEED !== undefined
    ? Number(process.env.FUZZ_SEED)
    : process.env.FUZZ_RUNS === undefined
      ? CI_SEED
      : undefined;

describe('sampleFromSchema (property)', () => {
  it('answers every satisfiable schema built from the keywords, in both dialects', () => {
    let refused = 0;
    fc.assert(
      fc.property(witnessedSchemaArb, fc.nat(), ({ witness, schema }, seed) => {
        let compiled: ReturnType<typeof gatewayCompiler.compile>;
        try {
          compiled = gatewayCompiler.compile(schema);
        } catch {
          refused++;
          return;
        }
        // The generator's own promise first: the witness is valid.
        assert.deepEqual(compiled.validate(witness), [], `witness ${JSON.stringify(witness)} fails`);
        const answer = sampleFromSchema(schema, seededRandom(seed));
        assert.deepEqual(compiled.validate(answer), [], `answer ${JSON.stringify(answer)}`);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    // Accepted schemas are the point: refusals (size limits) must stay rare.
    assert.ok(refused < RUNS / 20, `${refused} of ${RUNS} schemas refused`);
  });
});
