import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CACHE_USAGE } from '../domain/usage.ts';
import { formatCost } from './cost-header.ts';

const usage = { tokensIn: 10, tokensOut: 5, estimatedCost: 0, estimated: false, ...NO_CACHE_USAGE };

describe('formatCost', () => {
  it('writes the cost in plain decimals, never in exponent form', () => {
    const cost = (estimatedCost: number) => formatCost({ ...usage, estimatedCost });
    assert.equal(cost(0.000123), '0.000123');
    assert.equal(cost(3e-8), '0.00000003');
    assert.equal(cost(1.5), '1.5');
    assert.equal(cost(0), '0');
    assert.equal(cost(12), '12');
    assert.equal(cost(100), '100');
  });
});
