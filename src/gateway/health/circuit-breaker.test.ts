import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessProviderHealth } from './circuit-breaker.ts';

describe('InProcessProviderHealth (circuit breaker)', () => {
  it('opens after the threshold of consecutive failures, per slot', () => {
    const health = new InProcessProviderHealth({ failureThreshold: 3, cooldownMs: 1000 });
    for (let i = 0; i < 2; i++) health.recordFailure('provider-a', 0);
    assert.equal(health.tryAcquire('provider-a', 0), true);
    health.recordFailure('provider-a', 0);
    assert.equal(health.state('provider-a', 10), 'open');
    assert.equal(health.tryAcquire('provider-a', 10), false);
    assert.equal(health.tryAcquire('provider-b', 10), true, 'other slots are unaffected');
  });

  it('a success resets the count', () => {
    const health = new InProcessProviderHealth({ failureThreshold: 2, cooldownMs: 1000 });
    health.recordFailure('provider-a', 0);
    health.recordSuccess('provider-a');
    health.recordFailure('provider-a', 0);
    assert.equal(health.state('provider-a', 0), 'closed');
  });

  it('lets one probe through after the cooldown; its failure reopens, its success closes', () => {
    const health = new InProcessProviderHealth({ failureThreshold: 1, cooldownMs: 1000 });
    health.recordFailure('provider-a', 0);
    assert.equal(health.state('provider-a', 1000), 'half_open');
    assert.equal(health.tryAcquire('provider-a', 1000), true);
    assert.equal(health.tryAcquire('provider-a', 1000), false, 'only one probe at a time');
    health.recordFailure('provider-a', 1000);
    assert.equal(health.state('provider-a', 1500), 'open');
    assert.equal(health.tryAcquire('provider-a', 2000), true);
    health.recordSuccess('provider-a');
    assert.equal(health.state('provider-a', 2000), 'closed');
    assert.equal(health.tryAcquire('provider-a', 2000), true);
  });
});
