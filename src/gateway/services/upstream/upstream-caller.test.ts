import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { DeploymentBalancer } from '../../balancing/deployment-balancer.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import { InProcessProviderHealth } from '../../health/circuit-breaker.ts';
import type { ProviderAdapter } from '../../providers/provider.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { Deployment, DeploymentPool, ProviderRegistry } from '../../providers/registry.ts';
import { type CallScope, UpstreamCaller } from './upstream-caller.ts';

const retry = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1_000, budgetMs: 25_000 };
const circuit = { failureThreshold: 100, cooldownMs: 30_000 };

/** `script[name]` answers each call to that deployment: 'ok', or an HTTP status it fails with. */
function setUp(script: Record<string, (number | 'ok')[]>, slotB: (number | 'ok')[] = ['ok']) {
  let time = 0;
  const clock = { now: () => 1e12 + time, monotonic: () => time };
  const calls: string[] = [];
  const waits: number[] = [];
  const deployment = (slot: 'provider-a' | 'provider-b', name: string | null, answers: (number | 'ok')[]) => {
    const label = name ?? slot;
    const adapter = {
      chat: async () => {
        calls.push(label);
        time += 1;
        const answer = answers.shift() ?? 'ok';
        if (answer === 'ok') return label;
        throw new ProviderError({ slot, failure: 'http', status: answer });
      },
    } as unknown as ProviderAdapter;
    return {
      slot,
      name,
      key: name === null ? slot : `${slot}/${name}`,
      weight: 1,
      models: undefined,
      adapter,
    } as Deployment;
  };
  const pools: Record<string, DeploymentPool> = {
    'provider-a': {
      slot: 'provider-a',
      strategy: 'weighted',
      deployments: Object.entries(script).map(([name, answers]) => deployment('provider-a', name, answers)),
      callLimitMs: 1_000,
    },
    'provider-b': {
      slot: 'provider-b',
      strategy: 'weighted',
      deployments: [deployment('provider-b', null, slotB)],
      callLimitMs: 1_000,
    },
  };
  const registry = {
    pool: (slot: string) => pools[slot],
    settings: () => ({ apiKey: undefined }),
  } as unknown as ProviderRegistry;
  const health = new InProcessProviderHealth(circuit);
  const caller = new UpstreamCaller({
    registry,
    retry,
    clock,
    health,
    balancer: new DeploymentBalancer({ health, retry, circuit, clock }),
    random: () => 1,
    wait: async (ms) => {
      waits.push(ms);
      time += ms;
    },
  });
  const attempts: (string | null)[][] = [];
  const answered: (string | null)[] = [];
  const scope: CallScope = {
    requestId: 'r',
    app: 'app',
    sessionKey: undefined,
    startedAt: 0,
    signal: new AbortController().signal,
    metadata: undefined,
    trace: undefined,
    takeAttemptNumber: () => 0,
    recordFailedCall: (_candidate, _latency, outcome, _status, name) => attempts.push([name, outcome]),
    answeredBy: (name) => answered.push(name),
    recordAbandonedCall: (_candidate, _adapter, _startedAt, name) => attempts.push([name, 'client_closed']),
  };
  const route: PlannedCandidate[] = [
    { provider: 'provider-a', model: 'm' },
    { provider: 'provider-b', model: 'm' },
  ];
  const call = (candidates = route) =>
    caller.call(candidates, scope, (adapter, _candidate, context) =>
      adapter.chat({ model: 'm', messages: [] }, context),
    );
  return { call, calls, waits, attempts, answered };
}

describe('UpstreamCaller over deployments', () => {
  it("calls the slot's next deployment at once after a 503, and says which answered", async () => {
    const { call, calls, waits, answered } = setUp({ east: [503], west: [503] });
    const success = await call();
    // Round one: both fail; after the backoff (at least their rest), round two.
    assert.equal(calls.length, 3);
    assert.equal(waits.length, 1);
    assert.ok((waits[0] ?? 0) >= 100, `waited ${waits[0]} ms: until a deployment has rested`);
    assert.equal(success.deployment, calls[2]);
    assert.deepEqual(answered, [calls[2]]);
  });

  it('makes one call per deployment per round, maxRetries more rounds, then the next slot', async () => {
    const { call, calls, attempts } = setUp({ east: [503, 503, 503], west: [502, 502, 502] });
    const success = await call();
    assert.equal(success.candidate.provider, 'provider-b');
    assert.equal(calls.filter((c) => c === 'east').length, 3);
    assert.equal(calls.filter((c) => c === 'west').length, 3);
    assert.equal(calls.at(-1), 'provider-b');
    assert.equal(attempts.length, 6);
  });

  it('moves a refused key (401) to the next deployment without a wait, and ends on a 400 at once', async () => {
    const refused = setUp({ east: [401], west: [401] });
    // Whatever the order, the first deployment refuses and the second refuses: no retry, no fallback.
    await assert.rejects(
      refused.call(),
      (error: unknown) => error instanceof ApiError && error.statusCode === 502,
    );
    assert.equal(refused.calls.length, 2);
    assert.deepEqual(refused.waits, []);
    const rejected = setUp({ east: [400], west: [400] });
    await assert.rejects(
      rejected.call(),
      (error: unknown) => error instanceof ApiError && error.statusCode === 502,
    );
    assert.equal(rejected.calls.length, 1);
  });

  it('a slot without deployments retries as it always did: one call per round, the same delays', async () => {
    const { call, calls, waits } = setUp({ east: [] }, [503, 503, 'ok']);
    const success = await call([{ provider: 'provider-b', model: 'm' }]);
    assert.equal(success.deployment, null);
    assert.deepEqual(calls, ['provider-b', 'provider-b', 'provider-b']);
    assert.deepEqual(waits, [100, 200]);
  });
});
