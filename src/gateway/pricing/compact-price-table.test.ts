import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { GENERATED_FILE, renderPriceTable } from '../../../scripts/extract-prices.ts';
import { lookUpRates, type Rates } from './compact-price-table.ts';
import { PRICE_DATA_SOURCE, PRICE_TABLES } from './genai-prices-table.generated.ts';

const WHEN = new Date('2026-06-01T00:00:00Z');

/** What the price book read from the package itself before the tables existed. */
function fromPackage(vendor: string, model: string, when: Date): Rates | undefined {
  const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, {
    providerId: vendor,
    timestamp: when,
  });
  if (found === null) return undefined;
  const prices = found.model_price as Record<string, unknown>;
  const rate = (name: string): number | undefined => {
    const value = prices[name];
    if (typeof value === 'object' && value !== null && 'base' in value) return value.base as number;
    return typeof value === 'number' ? value : undefined;
  };
  return {
    input: rate('input_mtok'),
    output: rate('output_mtok'),
    cacheRead: rate('cache_read_mtok'),
    cacheWrite: rate('cache_write_mtok'),
    cacheWrite1h: rate('cache_write_1h_mtok'),
  };
}

const vendors = Object.keys(PRICE_TABLES);
/** Longest prefix of a known model name tried. */
const ID_CUT = 30;

describe('compact price tables', () => {
  it('are what the installed @pydantic/genai-prices gives (run `npm run build` after updating it)', () => {
    assert.equal(readFileSync(GENERATED_FILE, 'utf8'), renderPriceTable());
    assert.match(PRICE_DATA_SOURCE, /^@pydantic\/genai-prices@\d+\.\d+\.\d+/);
  });

  it("price every model of the package's vendors as the package does, at several dates", () => {
    let compared = 0;
    for (const vendor of vendors) {
      const provider = findProvider({ providerId: vendor });
      assert.ok(provider !== undefined, vendor);
      const names = provider.models.flatMap((model) => [
        model.id,
        model.id.toUpperCase(),
        ` ${model.id}-20240806`,
      ]);
      for (const name of names) {
        for (const when of [new Date('2023-01-01T00:00:00Z'), WHEN]) {
          assert.deepEqual(
            lookUpRates(PRICE_TABLES, vendor, name, when),
            fromPackage(vendor, name, when),
            `${vendor} ${name}`,
          );
          compared++;
        }
      }
    }
    assert.ok(compared > 300, `compared ${compared} names`);
  });

  it('agree with the package on names it never listed (prefixes, suffixes, dates, noise)', () => {
    const known = vendors.flatMap(
      (vendor) => findProvider({ providerId: vendor })?.models.map((m) => m.id) ?? [],
    );
    const name = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.tuple(fc.constantFrom(...known), fc.string({ maxLength: 12 })).map(([id, tail]) => id + tail),
      fc
        .tuple(fc.constantFrom(...known), fc.integer({ min: 0, max: ID_CUT }))
        .map(([id, cut]) => id.slice(0, cut)),
      fc
        .tuple(
          fc.constantFrom(...known),
          fc.date({ min: new Date('2019-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }),
        )
        .map(([id, date]) => `${id}-${date.toISOString().slice(0, 10).replaceAll('-', '')}`),
    );
    fc.assert(
      fc.property(fc.constantFrom(...vendors), name, (vendor, model) => {
        assert.deepEqual(lookUpRates(PRICE_TABLES, vendor, model, WHEN), fromPackage(vendor, model, WHEN));
      }),
      { numRuns: 2000 },
    );
  });

  it('know no vendor the rows do not name', () => {
    assert.equal(lookUpRates(PRICE_TABLES, 'no-such-vendor', 'gpt-4o'), undefined);
  });
});
