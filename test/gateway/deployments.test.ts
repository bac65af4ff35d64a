import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { shareGateway } from '../helpers/gateway-harness.ts';
import {
  deploymentKey,
  deploymentsSlot,
  type MockDeployments,
  runConcurrently,
  startMockDeployments,
} from '../helpers/mock-deployments.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';

const messages = [{ role: 'user', content: 'spread me' }];
const rateLimited = (seconds: number) => ({
  status: 429,
  headers: { 'retry-after': String(seconds) },
  body: {
    error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
  },
});

describe('a slot of weighted deployments', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['east', 'west', 'north']);
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': deploymentsSlot(deployments, {
          weights: { east: 1, west: 2, north: 3 },
          regions: { east: 'us-east-1' },
        }),
      },
      routing: { chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }] },
    },
  }));
  after(() => deployments.close());

  it('splits 3,000 requests in proportion to the weights 1:2:3, within 2.5 points each', async (t) => {
    deployments.reset();
    const total = 3000;
    const started = performance.now();
    const statuses: number[] = [];
    await runConcurrently(total, 16, async () => {
      statuses.push((await gw.chat({ messages })).status);
    });
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual([...new Set(statuses)], [200]);
    const counts = deployments.counts();
    const shares = Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, n / total]));
    t.diagnostic(
      `weighted 1:2:3 over ${total} requests in ${seconds.toFixed(1)} s: ${JSON.stringify(counts)}`,
    );
    assert.equal((counts.east ?? 0) + (counts.west ?? 0) + (counts.north ?? 0), total);
    for (const [name, expected] of [
      ['east', 1 / 6],
      ['west', 2 / 6],
      ['north', 3 / 6],
    ] as const) {
      assert.ok(Math.abs((shares[name] ?? 0) - expected) < 0.025, `${name}: ${shares[name]} vs ${expected}`);
    }
  });

  it('names the deployment in the ledger, the attempts, /v1/usage and /metrics, and never its key', async () => {
    for (let i = 0; i < 30; i++) assert.equal((await gw.chat({ messages })).status, 200);
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 30 });
    for (const row of rows) {
      assert.ok(deployments.names.includes(row.deployment ?? ''), String(row.deployment));
      assert.equal(row.attempts.at(-1)?.deployment, row.deployment);
    }
    const usage = await gw.get('/v1/usage?groupBy=deployment');
    assert.equal(usage.status, 200, usage.text);
    const byDeployment = Object.fromEntries(usage.body.rows.map((r: any) => [r.deployment, r.requests]));
    assert.deepEqual(Object.keys(byDeployment).sort(), ['east', 'north', 'west']);
    assert.equal(
      Object.values(byDeployment).reduce((sum: number, n) => sum + (n as number), 0),
      usage.body.totals.requests,
    );
    const metrics = await gw.get('/metrics');
    const samples = parsePrometheusText(metrics.text);
    assert.ok(sumOf(samples, 'gateway_requests_total', { provider: 'provider-a', deployment: 'west' }) > 0);
    assert.ok(sumOf(samples, 'gateway_upstream_attempts_total', { deployment: 'north', outcome: 'ok' }) > 0);
    assert.equal(sumOf(samples, 'gateway_circuit_state', { deployment: 'east', state: 'closed' }), 1);
    assert.equal(
      sumOf(samples, 'gateway_deployment_in_flight', { provider: 'provider-a' }),
      0,
      'no count left behind',
    );
    for (const name of deployments.names) {
      const key = deploymentKey(name);
      assert.ok(!metrics.text.includes(key), `${name}'s key in /metrics`);
      assert.ok(!JSON.stringify(rows).includes(key), `${name}'s key in the ledger`);
      assert.ok(!usage.text.includes(key), `${name}'s key in /v1/usage`);
    }
  });
});

describe('a streamed answer from a deployment', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['only', 'other'], { streamChunks: 6, chunkDelayMs: 150 });
  });
  const gw = shareGateway(() => ({
    file: { providers: { 'provider-a': deploymentsSlot(deployments, { weights: { only: 1, other: 0 } }) } },
  }));
  after(() => deployments.close());

  const inFlight = async () =>
    sumOf(parsePrometheusText((await gw.get('/metrics')).text), 'gateway_deployment_in_flight', {
      deployment: 'only',
    });

  it('counts in flight until the stream ends, not until its first byte, and names the deployment', async () => {
    const streamed = gw.stream({ messages, provider: 'provider-a' });
    const only = deployments.mock('only');
    while (only.requests.length === 0) await sleep(5);
    // The first event is written at once, the next 150 ms apart: well inside the body by now.
    await sleep(300);
    assert.equal(await inFlight(), 1);
    const { events } = await streamed;
    assert.equal(events.at(-1)?.event, 'done');
    assert.equal(await inFlight(), 0);
    await gw.app.recorder.flush();
    const [row] = await gw.app.storage.usage.readRecords({ limit: 1 });
    assert.equal(row?.operation, 'chat_stream');
    assert.equal(row?.deployment, 'only');
  });
});

describe('a deployment that fails', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['primary', 'standby']);
  });
  // The standby (weight 0) is called only when the primary fails: which one answered is known.
  const gw = shareGateway(() => ({
    file: {
      providers: { 'provider-a': deploymentsSlot(deployments, { weights: { primary: 1, standby: 0 } }) },
      routing: { chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }] },
    },
  }));
  after(() => deployments.close());
  const primary = () => deployments.mock('primary');
  const standby = () => deployments.mock('standby');

  it("rests for its Retry-After after a 429, the slot's next deployment answering meanwhile", async (t) => {
    deployments.reset();
    primary().failNext(1, rateLimited(2));
    const limitedAt = performance.now();
    const first = await gw.chat({ messages });
    assert.equal(first.status, 200);
    assert.equal(first.body.provider, 'provider-a', "the slot's other deployment, not the next slot");
    assert.deepEqual(deployments.counts(), { primary: 1, standby: 1 });
    // While it rests, the primary is passed over.
    let backAfterMs: number | undefined;
    let restingAnswers = 0;
    while (performance.now() - limitedAt < 5_000) {
      // When the call was sent, not when it came back: a loaded machine answers late.
      const sentAt = performance.now();
      assert.equal((await gw.chat({ messages })).status, 200);
      if (primary().requests.length > 1) {
        backAfterMs = sentAt - limitedAt;
        break;
      }
      restingAnswers++;
      await sleep(50);
    }
    t.diagnostic(
      `429 with Retry-After: 2 → the primary took calls again after ${backAfterMs?.toFixed(0)} ms`,
    );
    assert.ok(backAfterMs !== undefined && backAfterMs >= 2_000 && backAfterMs < 3_000, String(backAfterMs));
    assert.equal(standby().requests.length, 1 + restingAnswers);
    await gw.app.recorder.flush();
    const [row] = await gw.app.storage.usage
      .readRecords({ limit: 1000 })
      .then((rows) => rows.filter((r) => r.id === first.body.id));
    assert.deepEqual(
      row?.attempts.map((a) => [a.deployment, a.outcome]),
      [
        ['primary', 'http_429'],
        ['standby', 'ok'],
      ],
    );
  });

  it('a 5xx moves the call to the next deployment; a 400 is not moved, nor retried', async () => {
    deployments.reset();
    primary().failNext(1, { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } });
    assert.equal((await gw.chat({ messages })).status, 200);
    assert.deepEqual(deployments.counts(), { primary: 1, standby: 1 });
    await sleep(300);
    deployments.reset();
    primary().failNext(1, {
      status: 400,
      body: { error: { message: 'bad', type: 'invalid_request_error' } },
    });
    const refused = await gw.chat({ messages });
    assert.equal(refused.status, 502);
    assert.deepEqual(deployments.counts(), { primary: 1, standby: 0 });
  });

  it('a refused key (401) moves the call to the next deployment, and rests the refused one', async () => {
    await sleep(300);
    deployments.reset();
    primary().configure({ apiKey: 'a-key-the-gateway-does-not-have' });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await gw.chat({ messages })).status, 200);
      assert.deepEqual(deployments.counts(), { primary: 1, standby: 5 });
    } finally {
      primary().configure({ apiKey: deploymentKey('primary') });
    }
  });
});

describe('deployments with model lists', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['small', 'large']);
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': {
          ...deploymentsSlot(deployments, { models: { small: ['gpt-4o-mini'], large: ['gpt-4.1'] } }),
          chatModel: 'gpt-4o-mini',
        },
      },
    },
  }));
  after(() => deployments.close());

  it('send each model only to the deployments that list it', async () => {
    deployments.reset();
    for (let i = 0; i < 10; i++) {
      assert.equal((await gw.chat({ messages, provider: 'provider-a' })).status, 200);
      assert.equal((await gw.chat({ messages, model: 'gpt-4.1' })).status, 200);
    }
    assert.deepEqual(deployments.counts(), { small: 10, large: 10 });
    assert.deepEqual(
      deployments.mock('large').requests.map((r) => (r.body as { model: string }).model),
      Array(10).fill('gpt-4.1'),
    );
  });

  it('refuse a model no deployment serves with 404, calling none', async () => {
    deployments.reset();
    const res = await gw.chat({ messages, provider: 'provider-a', model: 'gpt-5' });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error.code, 'not_found');
    assert.deepEqual(deployments.counts(), { small: 0, large: 0 });
  });
});
