import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CACHE_USAGE } from '../domain/usage.ts';
import { COST_HEADER, costHeader, formatUsd } from './cost-header.ts';

describe('formatUsd', () => {
  it('writes the cost in plain decimals, never in exponent form', () => {
    assert.equal(formatUsd(0.000123), '0.000123');
    assert.equal(formatUsd(3e-8), '0.00000003');
    assert.equal(formatUsd(1.5), '1.5');
    assert.equal(formatUsd(0), '0');
    assert.equal(formatUsd(12), '12');
    assert.equal(formatUsd(100), '100');
  });

  it("is the cost header's value, under COST_HEADER's name", () => {
    const usage = { tokensIn: 10, tokensOut: 5, estimatedCost: 3e-8, estimated: false, ...NO_CACHE_USAGE };
    assert.deepEqual(costHeader(usage), { [COST_HEADER]: '0.00000003' });
  });
});
