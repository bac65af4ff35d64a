import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceUsage, roundCost } from './pricing.ts';
import { NO_CACHE_TOKENS, splitCacheTokens } from './reported-usage.ts';
import { sumUsage } from './usage.ts';

describe('priceUsage', () => {
  const price = {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
    cacheWrite1hPerMTok: 6,
  };

  it('prices input and output per million tokens', () => {
    assert.equal(priceUsage({ inputTokens: 1_000_000, outputTokens: 0 }, price), 3);
    assert.equal(priceUsage({ inputTokens: 1000, outputTokens: 500 }, price), 0.0105);
  });

  it('charges each part of the input at its own rate: reads, 5-minute writes, 1-hour writes, the rest', () => {
    // 1000 input: 600 read from cache, 100 written for 5 minutes, 50 for an hour, 250 plain.
    const cost = priceUsage(
      {
        inputTokens: 1000,
        outputTokens: 20,
        cacheReadTokens: 600,
        cacheWriteTokens: 150,
        cacheWrite1hTokens: 50,
      },
      price,
    );
    assert.equal(cost, roundCost((250 * 3 + 600 * 0.3 + 100 * 3.75 + 50 * 6 + 20 * 15) / 1e6));
  });

  const cases: [string, Parameters<typeof priceUsage>[1], number][] = [
    // Without cache rates, reads and 5-minute writes are input; an hour's write is twice the input rate.
    ['no cache rates', { inputPerMTok: 2, outputPerMTok: 4 }, 10 * 2 + 50 * 2 + 30 * 2],
    [
      'read and write rates, no 1-hour rate',
      { inputPerMTok: 2, outputPerMTok: 4, cacheReadPerMTok: 0.2, cacheWritePerMTok: 2.5 },
      10 * 2 + 50 * 0.2 + 30 * 2.5,
    ],
  ];
  for (const [name, modelPrice, perMillion] of cases) {
    it(`falls back where the price has no rate: ${name}`, () => {
      const usage = {
        inputTokens: 100,
        outputTokens: 0,
        cacheReadTokens: 50,
        cacheWriteTokens: 40,
        cacheWrite1hTokens: 10,
      };
      assert.equal(priceUsage(usage, modelPrice), roundCost((perMillion + 10 * 2 * 2) / 1e6));
    });
  }

  it('never prices more cached tokens than the input an upstream reported', () => {
    // Counts that contradict each other: the parts are cut to the input they belong to.
    assert.deepEqual(
      splitCacheTokens({ inputTokens: 100, outputTokens: 0, cacheReadTokens: 80, cacheWriteTokens: 50 }),
      { cacheReadTokens: 80, cacheWrite5mTokens: 20, cacheWrite1hTokens: 0 },
    );
    assert.deepEqual(
      splitCacheTokens({ inputTokens: 10, outputTokens: 0, cacheWriteTokens: 4, cacheWrite1hTokens: 9 }),
      { cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 4 },
    );
    const cost = priceUsage({ inputTokens: 10, outputTokens: 0, cacheReadTokens: 1_000_000 }, price);
    assert.equal(cost, roundCost((10 * 0.3) / 1e6));
  });

  it('sums attempts: tokens, cache tokens, cost, and estimated if any part was', () => {
    const total = sumUsage([
      { tokensIn: 10, tokensOut: 0, costUsd: 0.1, estimated: false, ...NO_CACHE_TOKENS },
      {
        tokensIn: 20,
        tokensOut: 5,
        costUsd: 0.2,
        estimated: true,
        cacheReadTokens: 4,
        cacheWrite5mTokens: 3,
        cacheWrite1hTokens: 2,
      },
    ]);
    assert.deepEqual(total, {
      tokensIn: 30,
      tokensOut: 5,
      estimatedCost: 0.3,
      estimated: true,
      tokensInCacheRead: 4,
      tokensInCacheWrite: 5,
      tokensInCacheWrite1h: 2,
    });
    assert.deepEqual(sumUsage([]), {
      tokensIn: 0,
      tokensOut: 0,
      estimatedCost: 0,
      estimated: false,
      tokensInCacheRead: 0,
      tokensInCacheWrite: 0,
      tokensInCacheWrite1h: 0,
    });
  });
});
