import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'route me' }];
const fault = (simulated: Record<string, unknown>) => ({ simulated });

describe('routing, retries and fallback', () => {
  const gw = shareGateway({
    file: {
      routing: {
        chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }, { provider: 'provider-c' }],
        tasks: {
          summarize: [{ provider: 'provider-c', model: 'sim-summarizer' }, { provider: 'provider-b' }],
        },
      },
      providers: { 'provider-c': { models: ['sim-summarizer'] } },
      prices: { 'simulated-chat': { inputPerMTok: 1, outputPerMTok: 2 } },
    },
  });

  const chat = (payload: Record<string, unknown>) => gw.chat({ messages, ...payload });
  const since = (n: number) => gw.calls.slice(n).map((c) => `${c.slot}#${c.attempt}`);

  it('no task uses the default route', async () => {
    const res = await chat({});
    assert.equal(res.body.provider, 'provider-a');
  });

  it('a known task selects its route and model; an unknown task uses the default', async () => {
    const known = (await chat({ task: 'summarize' })).body;
    assert.equal(known.provider, 'provider-c');
    assert.equal(known.model, 'simulated-sim-summarizer');
    assert.equal((await chat({ task: 'no-such-task' })).body.provider, 'provider-a');
  });

  it('retries a retryable failure with backoff, then falls over to the next candidate', async () => {
    const n = gw.calls.length;
    const res = await chat({ metadata: fault({ fault: 'overloaded', slots: ['provider-a'] }) });
    assert.equal(res.status, 200);
    assert.equal(res.body.provider, 'provider-b');
    assert.deepEqual(since(n), ['provider-a#0', 'provider-a#1', 'provider-a#2', 'provider-b#0']);
  });

  it('a retry that succeeds stays on the same provider', async () => {
    const n = gw.calls.length;
    const res = await chat({ metadata: fault({ fault: 'rate_limited', faultAttempts: 1 }) });
    assert.equal(res.body.provider, 'provider-a');
    assert.deepEqual(since(n), ['provider-a#0', 'provider-a#1']);
  });

  it('never retries or falls over on a rejection (400): 502 upstream_error naming provider and status', async () => {
    const n = gw.calls.length;
    const res = await chat({ metadata: fault({ fault: 'bad_request' }) });
    assert.equal(res.status, 502);
    const { error } = res.body;
    assert.equal(error.code, 'upstream_error');
    assert.match(error.message, /provider-a/);
    assert.match(error.message, /400/);
    assert.equal(error.details.provider, 'provider-a');
    assert.equal(error.details.status, 400);
    assert.deepEqual(since(n), ['provider-a#0']);
  });

  it('a quota 429 is not retried', async () => {
    const n = gw.calls.length;
    const res = await chat({ metadata: fault({ fault: 'quota_exceeded' }) });
    assert.equal(res.status, 502);
    assert.deepEqual(since(n), ['provider-a#0']);
  });

  it('an explicit provider is never swapped for another slot', async () => {
    const n = gw.calls.length;
    const res = await chat({ provider: 'provider-b', metadata: fault({ fault: 'server_error' }) });
    assert.equal(res.status, 502);
    assert.deepEqual(since(n), ['provider-b#0', 'provider-b#1', 'provider-b#2']);
    assert.equal(res.body.error.details.attempts.length, 3);
  });

  it('timeouts that persist on every candidate give 504 upstream_timeout', async () => {
    const res = await chat({ metadata: fault({ fault: 'timeout' }) });
    assert.equal(res.status, 504);
    assert.equal(res.body.error.code, 'upstream_timeout');
  });

  it('a model without a provider goes to a slot that declares it', async () => {
    const res = (await chat({ model: 'sim-summarizer' })).body;
    assert.equal(res.provider, 'provider-c');
  });

  it('the configured price table prices the answer', async () => {
    const body = (await chat({})).body;
    const expected = (body.usage.tokensIn * 1 + body.usage.tokensOut * 2) / 1e6;
    assert.ok(Math.abs(body.usage.estimatedCost - expected) < 1e-9);
  });
});
