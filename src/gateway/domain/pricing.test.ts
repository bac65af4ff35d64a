import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceUsage, roundCost } from './pricing.ts';
import { sumUsage } from './usage.ts';

describe('priceUsage', () => {
  const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

  it('prices input and output per million tokens', () => {
    assert.equal(priceUsage({ inputTokens: 1_000_000, outputTokens: 0 }, price), 3);
    assert.equal(priceUsage({ inputTokens: 1000, outputTokens: 500 }, price), 0.0105);
  });

  it('charges cached input at the cache rates, the rest at the input rate', () => {
    // 1000 input of which 600 read from cache and 100 written: 300*3 + 600*0.3 + 100*3.75 per million.
    const cost = priceUsage(
      { inputTokens: 1000, outputTokens: 0, cacheReadTokens: 600, cacheWriteTokens: 100 },
      price,
    );
    assert.equal(cost, roundCost((300 * 3 + 600 * 0.3 + 100 * 3.75) / 1e6));
  });

  it('falls back to the input rate when a model has no cache rates', () => {
    const plain = { inputPerMTok: 2, outputPerMTok: 4 };
    assert.equal(priceUsage({ inputTokens: 100, outputTokens: 0, cacheReadTokens: 50 }, plain), 0.0002);
  });

  it('sums attempts: tokens, cost, and estimated if any part was', () => {
    const total = sumUsage([
      { tokensIn: 10, tokensOut: 0, costUsd: 0.1, estimated: false },
      { tokensIn: 20, tokensOut: 5, costUsd: 0.2, estimated: true },
    ]);
    assert.deepEqual(total, { tokensIn: 30, tokensOut: 5, estimatedCost: 0.3, estimated: true });
    assert.deepEqual(sumUsage([]), { tokensIn: 0, tokensOut: 0, estimatedCost: 0, estimated: false });
  });
});
