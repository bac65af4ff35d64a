import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'circuit' }];

describe('per-provider circuit breaker', () => {
  const gw = shareGateway({ file: { circuit: { failureThreshold: 3, cooldownMs: 60_000 } } });

  const chat = (payload: Record<string, unknown>) => gw.chat({ messages, ...payload });

  it('opens after repeated failures, then skips the slot without calling it', async () => {
    const failing = { metadata: { simulated: { fault: 'server_error', slots: ['provider-a'] } } };
    const first = await chat(failing);
    assert.equal(first.body.provider, 'provider-b');
    assert.equal(gw.callsTo('provider-a'), 3, 'three failed calls open the circuit');

    const second = await chat({});
    assert.equal(second.status, 200);
    assert.equal(second.body.provider, 'provider-b', 'the open slot is skipped');
    assert.equal(gw.callsTo('provider-a'), 3, 'no further call to the open slot');
  });

  it('an explicit provider with an open circuit gets 503 provider_unavailable at once', async () => {
    const before = gw.calls.length;
    const res = await chat({ provider: 'provider-a' });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'provider_unavailable');
    assert.equal(gw.calls.length, before);
  });
});
