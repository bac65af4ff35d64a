import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, type Harness, startHarness } from '../helpers/harness.ts';

describe('GET /v1/usage', () => {
  let h: Harness;
  const other = { 'x-gateway-app': 'other-app', 'x-gateway-secret': 'other-secret-123' };
  before(async () => {
    h = await startHarness({
      env: { GATEWAY_APPS: `test-app:test-secret-0123456789,other-app:${other['x-gateway-secret']}` },
    });
  });
  after(() => h.close());

  it("reports the app's own totals, equal to the sum of its answers, grouped as asked", async () => {
    const answers: any[] = [];
    for (const provider of ['provider-a', 'provider-b', 'provider-b']) {
      const res = await h.gateway.inject({
        method: 'POST',
        url: '/v1/chat',
        headers: AUTH,
        payload: { messages: [{ role: 'user', content: `hi ${provider}` }], provider },
      });
      answers.push(res.json());
    }
    await h.gateway.inject({
      method: 'POST',
      url: '/v1/embed',
      headers: other,
      payload: { input: 'not mine' },
    });

    const res = await h.gateway.inject({
      method: 'GET',
      url: '/v1/usage?groupBy=provider,operation',
      headers: AUTH,
    });
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json();
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
      const res = await h.gateway.inject({ method: 'GET', url, headers: AUTH });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().error.details[0].path, path, url);
    }
  });

  it('needs credentials', async () => {
    assert.equal((await h.gateway.inject({ method: 'GET', url: '/v1/usage' })).statusCode, 401);
  });
});
