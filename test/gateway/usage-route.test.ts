import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';

describe('GET /v1/usage', () => {
  const other = { 'x-gateway-app': 'other-app', 'x-gateway-secret': 'other-secret-123' };
  const gw = shareGateway({
    env: { GATEWAY_APPS: `test-app:test-secret-0123456789,other-app:${other['x-gateway-secret']}` },
  });

  it("reports the app's own totals, equal to the sum of its answers, grouped as asked", async () => {
    const answers: any[] = [];
    for (const provider of ['provider-a', 'provider-b', 'provider-b']) {
      const res = await gw.chat({ messages: [{ role: 'user', content: `hi ${provider}` }], provider });
      answers.push(res.body);
    }
    await gw.embed({ input: 'not mine' }, { headers: other });

    const res = await gw.get('/v1/usage?groupBy=provider,operation');
    assert.equal(res.status, 200, res.text);
    const report = res.body;
    assert.equal(report.app, 'test-app');
    assert.deepEqual(report.groupBy, ['provider', 'operation']);
    const sum = (key: 'tokensIn' | 'tokensOut') => answers.reduce((s, a) => s + a.usage[key], 0);
    assert.equal(report.totals.requests, 3);
    assert.equal(report.totals.tokensIn, sum('tokensIn'));
    assert.equal(report.totals.tokensOut, sum('tokensOut'));
    const cost = answers.reduce((s, a) => s + a.usage.estimatedCost, 0);
    assert.ok(Math.abs(report.totals.costUsd - cost) < 1e-9);
    assert.deepEqual(
      report.rows.map((r: any) => [r.provider, r.operation, r.requests]),
      [
        ['provider-a', 'chat', 1],
        ['provider-b', 'chat', 2],
      ],
    );
  });

  it('refuses bad dates, unknown groups and unknown parameters with field paths', async () => {
    const cases: [string, string][] = [
      ['/v1/usage?from=2026-13-01', '/from'],
      ['/v1/usage?to=yesterday', '/to'],
      ['/v1/usage?from=2026-05-02&to=2026-05-01', '/to'],
      ['/v1/usage?groupBy=day,colour', '/groupBy'],
      ['/v1/usage?limit=3', '/limit'],
    ];
    for (const [url, path] of cases) {
      const res = await gw.get(url);
      assert.equal(res.status, 400, url);
      assert.equal(res.body.error.details[0].path, path, url);
    }
  });

  it('groups by front door: the native routes record native, the compatible doors their own', async () => {
    const doors = async () => {
      const res = await gw.get('/v1/usage?groupBy=frontDoor', { headers: other });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.groupBy, ['frontDoor']);
      return Object.fromEntries(res.body.rows.map((r: any) => [r.frontDoor, r.requests]));
    };
    const before = await doors();
    assert.equal(
      (await gw.chat({ messages: [{ role: 'user', content: 'native' }] }, { headers: other })).status,
      200,
    );
    // No compatible door is routed in this suite: its rows are written as the door would record them.
    await gw.app.storage.usage.appendBatch([
      sampleRecord('door-openai', { app: 'other-app', frontDoor: 'openai', createdAt: Date.now() }),
      sampleRecord('door-anthropic', { app: 'other-app', frontDoor: 'anthropic', createdAt: Date.now() }),
    ]);
    const after = await doors();
    assert.equal(after.native, (before.native ?? 0) + 1);
    assert.equal(after.openai, (before.openai ?? 0) + 1);
    assert.equal(after.anthropic, (before.anthropic ?? 0) + 1);
  });

  it('needs credentials', async () => {
    assert.equal((await gw.get('/v1/usage', { auth: false })).status, 401);
  });
});
