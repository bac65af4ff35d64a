import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { shareGateway } from '../helpers/gateway-harness.ts';
import {
  deploymentsSlot,
  type MockDeployments,
  runConcurrently,
  startMockDeployments,
} from '../helpers/mock-deployments.ts';

const messages = [{ role: 'user', content: 'which one?' }];

describe('least-busy under uneven upstream latency', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['fast', 'slow']);
    deployments.mock('fast').configure({ answerDelayMs: 20 });
    deployments.mock('slow').configure({ answerDelayMs: 400 });
  });
  const leastBusy = shareGateway(() => ({
    file: { providers: { 'provider-a': deploymentsSlot(deployments, { strategy: 'least-busy' }) } },
  }));
  const weighted = shareGateway(() => ({
    file: { providers: { 'provider-a': deploymentsSlot(deployments) } },
  }));
  after(() => deployments.close());

  it('sends most calls to the deployment that answers sooner (weighted splits them evenly)', async (t) => {
    const total = 200;
    const results: Record<string, { fastShare: number; seconds: number }> = {};
    for (const [name, gw] of [
      ['least-busy', leastBusy],
      ['weighted', weighted],
    ] as const) {
      deployments.reset();
      const started = performance.now();
      await runConcurrently(total, 8, async () => {
        assert.equal((await gw.chat({ messages, provider: 'provider-a' })).status, 200);
      });
      const counts = deployments.counts();
      results[name] = {
        fastShare: (counts.fast ?? 0) / total,
        seconds: (performance.now() - started) / 1000,
      };
      t.diagnostic(
        `${name}, ${total} calls, 8 at a time, fast 20 ms / slow 400 ms: ${JSON.stringify(counts)} in ${results[name].seconds.toFixed(2)} s`,
      );
    }
    assert.ok((results['least-busy']?.fastShare ?? 0) > 0.7, JSON.stringify(results));
    const evenShare = results.weighted?.fastShare ?? 0;
    assert.ok(evenShare > 0.35 && evenShare < 0.65, JSON.stringify(results));
    assert.ok(
      (results['least-busy']?.seconds ?? 0) < (results.weighted?.seconds ?? 0),
      JSON.stringify(results),
    );
  });
});

describe('latency routing', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['steady', 'wobbly']);
    for (const mock of deployments.mocks) mock.configure({ answerDelayMs: 5, record: true });
  });
  const gw = shareGateway(() => ({
    file: { providers: { 'provider-a': deploymentsSlot(deployments, { strategy: 'latency' }) } },
  }));
  after(() => deployments.close());

  /**
   * Keeps 4 requests in flight for up to `limitMs`, and every 250 ms notes the share of the new
   * calls that reached `wobbly`; stops when `until` says so of it, answering when that was
   * (undefined if never).
   */
  async function drive(
    limitMs: number,
    until: (wobblyShare: number) => boolean,
  ): Promise<number | undefined> {
    const wobbly = deployments.mock('wobbly');
    const steady = deployments.mock('steady');
    const from = performance.now();
    let reachedAt: number | undefined;
    let stop = false;
    const load = runConcurrently(Number.MAX_SAFE_INTEGER, 4, async () => {
      if (stop) throw new Error('stopped');
      assert.equal((await gw.chat({ messages, provider: 'provider-a' })).status, 200);
    }).catch((error: Error) => {
      if (error.message !== 'stopped') throw error;
    });
    let before = [wobbly.requests.length, steady.requests.length];
    while (reachedAt === undefined && performance.now() - from < limitMs) {
      await sleep(250);
      const now = [wobbly.requests.length, steady.requests.length];
      const wobblyCalls = (now[0] ?? 0) - (before[0] ?? 0);
      const all = wobblyCalls + (now[1] ?? 0) - (before[1] ?? 0);
      before = now;
      if (all >= 10 && until(wobblyCalls / all)) reachedAt = performance.now() - from;
    }
    stop = true;
    await load;
    return reachedAt;
  }

  it('moves traffic off a slowed deployment within a second, and back within seconds after', async (t) => {
    const wobbly = deployments.mock('wobbly');
    // Both fast: both take calls.
    assert.ok((await drive(5_000, (share) => share > 0.25)) !== undefined, 'both fast: both take calls');
    wobbly.configure({ answerDelayMs: 250 });
    const offMs = await drive(5_000, (share) => share < 0.05);
    // Still slow: it is tried again now and then, one call at a time, and stays out.
    await drive(1_500, () => false);
    const probed = wobbly.requests.length;
    await drive(3_000, () => false);
    const probes = wobbly.requests.length - probed;
    wobbly.configure({ answerDelayMs: 5 });
    const backMs = await drive(15_000, (share) => share > 0.25);
    t.diagnostic(
      `latency: wobbly slowed 5 → 250 ms: under 5 % of calls after ${offMs?.toFixed(0)} ms; ${probes} calls to it in 3 s while slow; back to 5 ms: over 25 % after ${backMs?.toFixed(0)} ms`,
    );
    assert.ok(offMs !== undefined && offMs < 1_500, `off after ${offMs} ms`);
    assert.ok(probes >= 1 && probes <= 6, `${probes} calls while slow`);
    assert.ok(backMs !== undefined && backMs < 8_000, `back after ${backMs} ms`);
  });
});
