import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { APP, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

const ADMIN_TOKEN = 'admin-token-for-the-tests-0123';
const OTHER = { 'x-gateway-app': 'other', 'x-gateway-secret': 'other-secret-0123456789' };
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const messages = [{ role: 'user', content: 'count me' }];

describe('admin API and dashboard without ADMIN_TOKEN', () => {
  const gw = shareGateway();
  it('answer 404 in the envelope, as any unknown path', async () => {
    for (const path of [
      '/dashboard',
      '/admin/api/usage',
      '/admin/api/apps',
      '/dashboard/assets/dashboard.js',
    ]) {
      const reply = await gw.get(path, { headers: ADMIN });
      assert.equal(reply.status, 404, path);
      assert.equal(reply.body.error.code, 'not_found');
    }
  });
});

describe('admin API', () => {
  const gw = shareGateway({
    env: { ADMIN_TOKEN, GATEWAY_APPS: `${APP}:test-secret-0123456789,other:other-secret-0123456789` },
    file: { limits: { apps: { other: { requestsPerMinute: 2, dailyBudgetUsd: 5 } } } },
    // `other`'s requests below fall in one minute's window.
    clock: clockAtMinuteStart(),
  });

  before(async () => {
    for (let i = 0; i < 3; i++) assert.equal((await gw.chat({ messages })).status, 200);
    const failed = await gw.chat({
      messages,
      provider: 'provider-a',
      metadata: { simulated: { fault: 'bad_request' } },
    });
    assert.equal(failed.status, 502);
    // `other` may send two a minute: the third is refused by its limit.
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await gw.chat({ messages }, { auth: false, headers: OTHER })).status);
    assert.equal(statuses.filter((s) => s === 429).length >= 1, true, String(statuses));
  });

  it('refuses a caller without the admin token, or with a wrong one, in the envelope', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: ADMIN_TOKEN }]) {
      const reply = await gw.get('/admin/api/usage', { auth: false, headers });
      assert.equal(reply.status, 401);
      assert.equal(reply.body.error.code, 'unauthorized');
    }
  });

  it('sums every app, grouped by app, and the totals are the sum of the rows', async () => {
    const reply = await gw.get('/admin/api/usage?groupBy=app', { auth: false, headers: ADMIN });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['cache-control'], 'no-store');
    const rows = reply.body.rows as { app: string; requests: number; errors: number; costUsd: number }[];
    const mine = rows.find((r) => r.app === APP);
    const other = rows.find((r) => r.app === 'other');
    assert.deepEqual([mine?.requests, mine?.errors], [4, 1]);
    assert.ok(other !== undefined && other.requests >= 2);
    assert.equal(
      reply.body.totals.requests,
      rows.reduce((sum, r) => sum + r.requests, 0),
    );
    assert.equal(
      reply.body.totals.errorRate,
      Math.round((reply.body.totals.errors / reply.body.totals.requests) * 10_000) / 10_000,
    );
    const filtered = await gw.get(`/admin/api/usage?groupBy=day,model&app=${APP}`, {
      auth: false,
      headers: ADMIN,
    });
    assert.equal(filtered.body.totals.requests, 4);
    assert.match(filtered.body.rows[0].day, /^\d{4}-\d{2}-\d{2}$/);
    const doors = await gw.get('/admin/api/usage?groupBy=frontDoor', { auth: false, headers: ADMIN });
    assert.deepEqual(
      doors.body.rows.map((r: { frontDoor: string }) => r.frontDoor),
      ['native'],
    );
    const hourly = await gw.get('/admin/api/usage?groupBy=hour,provider', { auth: false, headers: ADMIN });
    assert.match(hourly.body.rows[0].hour, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
  });

  it('answers 400 for a grouping, range or filter it does not know', async () => {
    for (const query of [
      'groupBy=colour',
      'groupBy=day,hour',
      'from=2026-02-30',
      'from=2026-03-02&to=2026-03-01',
      'from=yesterday',
      'groupBy=hour&from=2026-01-01&to=2026-03-01',
    ]) {
      const reply = await gw.get(`/admin/api/usage?${query}`, { auth: false, headers: ADMIN });
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.error.code, 'invalid_request');
    }
    const tooMany = await gw.get('/admin/api/failures?limit=1000', { auth: false, headers: ADMIN });
    assert.equal(tooMany.status, 400);
  });

  it('lists recent failures with their error codes, newest first', async () => {
    const reply = await gw.get('/admin/api/failures', { auth: false, headers: ADMIN });
    assert.equal(reply.status, 200);
    const codes = (reply.body.failures as { errorCode: string; app: string; status: number }[]).map((f) => [
      f.app,
      f.status,
      f.errorCode,
    ]);
    assert.deepEqual(codes, [[APP, 502, 'upstream_error']], 'limit refusals leave no ledger row');
  });

  it('gives latency percentiles per bucket and overall', async () => {
    const reply = await gw.get('/admin/api/latency?bucket=hour', { auth: false, headers: ADMIN });
    assert.equal(reply.status, 200);
    const { overall, rows } = reply.body;
    assert.ok(overall.requests >= 6, JSON.stringify(overall));
    assert.ok(overall.p50Ms > 0 && overall.p50Ms <= overall.p95Ms && overall.p95Ms <= overall.p99Ms);
    assert.equal(
      rows.reduce((sum: number, r: { requests: number }) => sum + r.requests, 0),
      overall.requests,
    );
  });

  it('counts limit refusals by app and limit', async () => {
    const reply = await gw.get('/admin/api/refusals?groupBy=app,limit', { auth: false, headers: ADMIN });
    assert.equal(reply.status, 200);
    assert.ok(reply.body.total >= 1);
    assert.deepEqual(
      reply.body.rows.map((r: { app: string; limit: string }) => [r.app, r.limit]),
      [['other', 'requests per minute']],
    );
  });

  it('lists apps with their limits and current use, never a secret or its hash', async () => {
    const reply = await gw.get('/admin/api/apps', { auth: false, headers: ADMIN });
    assert.equal(reply.status, 200);
    const other = reply.body.apps.find((a: { name: string }) => a.name === 'other');
    assert.deepEqual(other.limits, { requestsPerMinute: 2, dailyBudgetUsd: 5 });
    assert.equal(other.status, 'active');
    const mine = reply.body.apps.find((a: { name: string }) => a.name === APP);
    assert.equal(mine.today.requests, 4);
    assert.equal(mine.thisMonth.requests, 4);
    assert.doesNotMatch(reply.text, /scrypt|secret/i);
  });
});

describe('dashboard sign-in', () => {
  const origin = 'http://localhost:8787';
  const form = (token: string) => `token=${encodeURIComponent(token)}`;
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', origin };

  it('signs in with the token into an HttpOnly SameSite=Strict session, and signs out', async (t) => {
    const gw = await startGateway(t, { env: { ADMIN_TOKEN } });
    const page = await gw.get('/dashboard', { auth: false });
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post" action="\/dashboard\/sign-in">/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);

    const wrong = await gw.gateway.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: formHeaders,
      payload: form('not-the-token'),
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    assert.match(wrong.body, /not the admin token/);

    const signIn = await gw.gateway.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: formHeaders,
      payload: form(ADMIN_TOKEN),
    });
    assert.equal(signIn.statusCode, 303);
    assert.equal(signIn.headers.location, '/dashboard');
    const setCookie = String(signIn.headers['set-cookie']);
    assert.match(setCookie, /^gateway_admin=[^;]+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.doesNotMatch(setCookie, new RegExp(ADMIN_TOKEN));
    const cookie = setCookie.split(';')[0] as string;

    const api = await gw.get('/admin/api/usage', { auth: false, headers: { cookie } });
    assert.equal(api.status, 200);
    const shell = await gw.get('/dashboard', { auth: false, headers: { cookie } });
    assert.match(shell.text, /<script type="module" src="\/dashboard\/assets\/dashboard.js">/);

    const signOut = await gw.gateway.inject({
      method: 'POST',
      url: '/dashboard/sign-out',
      headers: { origin, cookie },
    });
    assert.equal(signOut.statusCode, 303);
    assert.match(String(signOut.headers['set-cookie']), /^gateway_admin=; Max-Age=0;/);
    assert.equal((await gw.get('/admin/api/usage', { auth: false, headers: { cookie } })).status, 401);
  });

  it('refuses a form from another origin, or with no origin (CSRF)', async (t) => {
    const gw = await startGateway(t, { env: { ADMIN_TOKEN } });
    for (const headers of [
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      { 'content-type': 'application/x-www-form-urlencoded' },
    ]) {
      const reply = await gw.gateway.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers,
        payload: form(ADMIN_TOKEN),
      });
      assert.equal(reply.statusCode, 403);
      assert.equal(reply.headers['set-cookie'], undefined);
      assert.equal(JSON.parse(reply.body).error.code, 'forbidden');
    }
  });

  it('behind an https public URL the cookie is Secure and __Host- prefixed', async (t) => {
    const gw = await startGateway(t, { env: { ADMIN_TOKEN, PUBLIC_GATEWAY_URL: 'https://gateway.example' } });
    const reply = await gw.gateway.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://gateway.example' },
      payload: form(ADMIN_TOKEN),
    });
    assert.equal(reply.statusCode, 303);
    assert.match(
      String(reply.headers['set-cookie']),
      /^__Host-gateway_admin=[^;]+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict; Secure$/,
    );
  });

  it('a short ADMIN_TOKEN stops start-up with a message that does not echo it', async () => {
    const { loadConfig } = await import('../../src/config/load-config.ts');
    assert.throws(
      () => loadConfig({ ADMIN_TOKEN: 'short-secret' }, []),
      (error: Error) => {
        assert.match(error.message, /ADMIN_TOKEN/);
        assert.doesNotMatch(error.message, /short-secret/);
        return true;
      },
    );
  });
});
