import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BalanceStrategy } from '../../config/config-types.ts';
import { InProcessProviderHealth } from '../health/circuit-breaker.ts';
import type { ProviderAdapter } from '../providers/provider.ts';
import type { Deployment, DeploymentPool } from '../providers/registry.ts';
import { DeploymentBalancer } from './deployment-balancer.ts';
import type { DeploymentRound } from './deployment-round.ts';

const retry = { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 4_000, budgetMs: 25_000 };
const circuit = { failureThreshold: 1, cooldownMs: 30_000 };

function setUp(strategy: BalanceStrategy, names = ['a', 'b', 'c'], models: Record<string, string[]> = {}) {
  let time = 1_000_000;
  const clock = { now: () => time, monotonic: () => time };
  const health = new InProcessProviderHealth(circuit);
  const balancer = new DeploymentBalancer({ health, retry, circuit, clock, random: Math.random });
  const deployments: Deployment[] = names.map((name) => ({
    slot: 'provider-a',
    name,
    key: `provider-a/${name}`,
    weight: 1,
    models: models[name],
    adapter: {} as ProviderAdapter,
  }));
  const pool: DeploymentPool = { slot: 'provider-a', strategy, deployments, callLimitMs: 120_000 };
  const byName = (name: string) => deployments.find((d) => d.name === name) as Deployment;
  return { balancer, pool, health, byName, advance: (ms: number) => (time += ms), now: () => time };
}

/** The names of a round's picks in order, each released at once. */
async function drain(round: DeploymentRound): Promise<string[]> {
  const names: string[] = [];
  for (let pick = await round.next(); pick !== undefined; pick = await round.next()) {
    names.push(pick.deployment.name as string);
    pick.release();
  }
  return names;
}

describe('DeploymentBalancer', () => {
  it('passes over a resting deployment while another is awake, and takes it back once rested', async () => {
    const { balancer, pool, byName, advance } = setUp('weighted');
    balancer.rest(byName('a'), 2_000, true);
    for (let i = 0; i < 20; i++)
      assert.ok(!(await drain(balancer.startRound(pool, 'm', undefined))).includes('a'));
    advance(2_000);
    assert.equal((await drain(balancer.startRound(pool, 'm', undefined))).length, 3);
  });

  it('rests for a backoff without Retry-After, growing with failures in a row, and a refused key for the cooldown', () => {
    const { balancer, pool, byName, advance, now } = setUp('weighted');
    const a = byName('a');
    balancer.rest(a, undefined, true);
    assert.equal(balancer.wakeInMs([a]), 250);
    balancer.rest(a, undefined, true);
    assert.equal(balancer.wakeInMs([a]), 500);
    balancer.answered(pool, a, 10, now());
    assert.equal(balancer.wakeInMs([a]), 0);
    balancer.rest(byName('b'), undefined, false);
    assert.equal(balancer.wakeInMs([byName('b')]), 30_000);
    balancer.rest(byName('c'), 10 * 60_000, true);
    assert.equal(balancer.wakeInMs([byName('c')]), 300_000, 'a Retry-After is honoured up to 5 minutes');
    advance(1);
    assert.ok(balancer.isResting('provider-a/c'));
  });

  for (const strategy of ['weighted', 'least-busy', 'latency'] as const) {
    it(`${strategy}: tries every deployment when all rest, the one that wakes first first`, async () => {
      const { balancer, pool, byName } = setUp(strategy);
      // b is the busiest: least-busy would put it last, were it not the first to wake.
      await balancer.pick(pool, byName('b'));
      await balancer.pick(pool, byName('b'));
      balancer.rest(byName('a'), 3_000, true);
      balancer.rest(byName('b'), 1_000, true);
      balancer.rest(byName('c'), 2_000, true);
      assert.deepEqual(await drain(balancer.startRound(pool, 'm', undefined)), ['b', 'c', 'a']);
    });
  }

  it('sets apart deployments whose circuit is open, and serves a model only where it is listed', async () => {
    const { balancer, pool, health, now } = setUp('weighted', ['a', 'b', 'c'], { c: ['special'] });
    health.recordFailure('provider-a/a', now());
    const round = balancer.startRound(pool, 'm', undefined);
    assert.deepEqual(
      round.open.map((d) => d.name),
      ['a'],
    );
    assert.equal(round.eligible, 2, 'c serves only its own model');
    assert.deepEqual(await drain(round), ['b']);
    assert.equal(balancer.startRound(pool, 'special', undefined).eligible, 3);
    assert.equal(balancer.startRound(pool, 'other', undefined).eligible, 2);
  });

  it('least-busy: enters the deployment with the fewest calls in flight, and a release ends the count', async () => {
    const { balancer, pool } = setUp('least-busy');
    const picks = [];
    for (let i = 0; i < 6; i++) {
      const pick = await balancer.startRound(pool, 'm', undefined).next();
      assert.ok(pick !== undefined);
      picks.push(pick);
    }
    const names = picks.map((p) => p.deployment.name);
    assert.deepEqual(
      ['a', 'b', 'c'].map((n) => names.filter((x) => x === n).length),
      [2, 2, 2],
    );
    for (const pick of picks.filter((p) => p.deployment.name !== 'b')) {
      pick.release();
      pick.release();
    }
    assert.equal(balancer.inFlightOf('provider-a/b'), 2);
    assert.equal(balancer.inFlightOf('provider-a/a'), 0, 'a second release changes nothing');
    const next = await balancer.startRound(pool, 'm', undefined).next();
    assert.notEqual(next?.deployment.name, 'b');
  });

  it('keeps a session on its deployment over the strategy, moves it while that one rests, and brings it back', async () => {
    const { balancer, pool, byName, advance } = setUp('least-busy');
    const first = async () => (await balancer.startRound(pool, 'm', 'app\u0000s-1').next())?.deployment.name;
    const home = await first();
    for (let i = 0; i < 10; i++) assert.equal(await first(), home, 'not moved by its own calls in flight');
    balancer.rest(byName(home as string), 1_000, true);
    const away = await first();
    assert.notEqual(away, home);
    assert.equal(await first(), away, 'moved to one place, not spread');
    advance(1_000);
    assert.equal(await first(), home);
  });
});
