import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type Harness, shareGateway } from '../helpers/gateway-harness.ts';

const ADMIN_TOKEN = 'admin-token-for-the-governance-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const messages = [{ role: 'user', content: 'hello' }];

/** An admin API call as a client makes it. */
function call(
  gw: Harness,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = ADMIN,
) {
  return gw.request({
    method: method as 'GET',
    url: `/admin/api${url}`,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

describe('admin API: teams, apps and keys', () => {
  const gw = shareGateway({ env: { ADMIN_TOKEN } });

  it('creates a team, lists it in {data}, refuses a duplicate with 409 conflict', async () => {
    const made = await call(gw, 'POST', '/teams', {
      name: 'search',
      limits: { dailyBudgetUsd: 50, perEndUser: { requestsPerMinute: 30 } },
      models: ['provider-a/*', 'cheap'],
      metadata: { owner: 'ana' },
    });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.models, ['provider-a/*', 'cheap']);
    const again = await call(gw, 'POST', '/teams', { name: 'search' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'conflict');
    const listed = await call(gw, 'GET', '/teams');
    assert.ok(listed.body.data.some((t: { name: string }) => t.name === 'search'));
  });

  it('answers bad input with the 400 envelope, never a 500', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/teams', { name: 'x', colour: 'red' }],
      ['POST', '/teams', { name: 'x'.repeat(10_000) }],
      ['POST', '/teams', { name: 'has space' }],
      ['POST', '/teams', { name: 'neg', limits: { dailyBudgetUsd: -5 } }],
      ['POST', '/teams', { name: 'absurd', limits: { monthlyBudgetUsd: 1e15 } }],
      ['POST', '/teams', { name: 'frac', limits: { requestsPerMinute: 1.5 } }],
      ['POST', '/teams', { name: 'pat', models: ['has space'] }],
      ['POST', '/teams', { name: 'pat2', models: [''] }],
      ['POST', '/apps', { name: 'orphan', team: 'no-such-team' }],
      ['POST', '/apps', { name: 'a'.repeat(10_000) }],
      ['POST', '/apps', {}],
      ['PATCH', '/teams/search', { limits: { tokensPerMinute: 0 } }],
      ['POST', '/apps/nobody/keys/primary/rotate', { gracePeriodSeconds: 'soon' }],
    ];
    for (const [method, url, body] of cases) {
      const reply = await call(gw, method, url, body);
      assert.equal(
        reply.status,
        400,
        `${method} ${url} ${JSON.stringify(body).slice(0, 80)}: ${reply.text.slice(0, 200)}`,
      );
      assert.equal(reply.body.error.code, 'invalid_request');
    }
    const notJson = await gw.request({
      method: 'POST',
      url: '/admin/api/teams',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(notJson.status, 400);
  });

  it('makes an app in a team whose first key works, adds keys, notes their last use, revokes and rotates', async () => {
    const made = await call(gw, 'POST', '/apps', { name: 'search-web', team: 'search' });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.app.team, 'search');
    const first: string = made.body.key.secret;
    assert.match(first, /^search-web:gws_/);
    assert.equal((await call(gw, 'POST', '/apps', { name: 'search-web' })).status, 409);
    assert.equal((await gw.chat({ messages }, { auth: false, headers: bearer(first) })).status, 200);

    const laptop = await call(gw, 'POST', '/apps/search-web/keys', { name: 'ana laptop' });
    assert.equal(laptop.status, 201, laptop.text);
    assert.equal(
      (await gw.chat({ messages }, { auth: false, headers: bearer(laptop.body.secret) })).status,
      200,
    );
    await gw.app.keyUses.flush();
    const keys = await call(gw, 'GET', '/apps/search-web/keys');
    const listed = keys.body.data.find((k: { id: string }) => k.id === laptop.body.id);
    assert.equal(listed.name, 'ana laptop');
    assert.equal(listed.status, 'active');
    assert.match(listed.lastUsedAt, /T\d\d:\d\d:00\.000Z$/, 'to the minute');
    assert.equal(JSON.stringify(keys.body).includes('gws_'), false, 'no secret in a list');

    assert.equal((await call(gw, 'DELETE', `/apps/search-web/keys/${laptop.body.id}`)).status, 204);
    const revoked = await gw.chat({ messages }, { auth: false, headers: bearer(laptop.body.secret) });
    assert.equal(revoked.status, 401);
    assert.match(revoked.body.error.message, /ana laptop.*revoked/);

    // Rotation with the default grace: both keys work; with 0 the old one ends at once.
    const rotated = await call(gw, 'POST', '/apps/search-web/keys/primary/rotate', {});
    assert.equal(rotated.status, 201, rotated.text);
    assert.equal((await gw.chat({ messages }, { auth: false, headers: bearer(first) })).status, 200);
    assert.equal(
      (await gw.chat({ messages }, { auth: false, headers: bearer(rotated.body.secret) })).status,
      200,
    );
    const hard = await call(gw, 'POST', `/apps/search-web/keys/${rotated.body.id}/rotate`, {
      gracePeriodSeconds: 0,
    });
    assert.equal(hard.status, 201);
    const ended = await gw.chat({ messages }, { auth: false, headers: bearer(rotated.body.secret) });
    assert.equal(ended.status, 401);
    assert.match(ended.body.error.message, /expired/);
    assert.equal(
      (await gw.chat({ messages }, { auth: false, headers: bearer(hard.body.secret) })).status,
      200,
    );
  });

  it('holds at most 20 live keys per app', async () => {
    await call(gw, 'POST', '/apps', { name: 'crowded' });
    const statuses = [];
    for (let i = 0; i < 20; i++)
      statuses.push((await call(gw, 'POST', '/apps/crowded/keys', { name: `k${i}` })).status);
    assert.equal(statuses.filter((s) => s === 201).length, 19, 'the first key and 19 more');
    assert.equal(statuses.at(-1), 409);
  });

  it('deletes a team with apps only with ?force=true, which takes its apps out of it', async () => {
    await call(gw, 'POST', '/teams', { name: 'doomed' });
    await call(gw, 'POST', '/apps', { name: 'doomed-app', team: 'doomed' });
    const refused = await call(gw, 'DELETE', '/teams/doomed');
    assert.equal(refused.status, 409);
    assert.equal((await call(gw, 'DELETE', '/teams/doomed?force=true')).status, 204);
    assert.equal((await call(gw, 'GET', '/apps/doomed-app')).body.team, null);
    assert.equal((await call(gw, 'GET', '/teams/doomed')).status, 404);
  });

  it('audits every change with before and after, never a secret', async () => {
    await call(gw, 'PATCH', '/teams/search', { limits: { dailyBudgetUsd: 60 } });
    const audit = await call(gw, 'GET', '/audit?limit=200');
    assert.equal(audit.status, 200);
    const update = audit.body.data.find((e: { action: string }) => e.action === 'team.update');
    assert.equal(update.actor, 'admin');
    assert.equal(update.before.limits.dailyBudgetUsd, 50);
    assert.equal(update.after.limits.dailyBudgetUsd, 60);
    const actions = new Set(audit.body.data.map((e: { action: string }) => e.action));
    for (const action of [
      'team.create',
      'app.create',
      'key.create',
      'key.revoke',
      'key.rotate',
      'team.delete',
    ])
      assert.ok(actions.has(action), action);
    assert.equal(/gws_|keyed\$|scrypt\$/.test(audit.text), false);
  });
});

describe('admin API: a team admin token is confined to its team', () => {
  const gw = shareGateway({ env: { ADMIN_TOKEN } });
  let token: Record<string, string>;

  before(async () => {
    await call(gw, 'POST', '/teams', { name: 'blue', models: ['*'] });
    await call(gw, 'POST', '/teams', { name: 'red' });
    await call(gw, 'POST', '/apps', { name: 'blue-app', team: 'blue' });
    await call(gw, 'POST', '/apps', { name: 'red-app', team: 'red' });
    const made = await call(gw, 'POST', '/teams/blue/tokens', { name: 'blue lead' });
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.token, /^gwt_/);
    token = bearer(made.body.token);
  });

  it("manages its team's apps and keys", async () => {
    assert.equal((await call(gw, 'GET', '/teams/blue', undefined, token)).status, 200);
    const app = await call(gw, 'POST', '/apps', { name: 'blue-ci' }, token);
    assert.equal(app.status, 201, app.text);
    assert.equal(app.body.app.team, 'blue', 'made in its team');
    assert.equal((await call(gw, 'PATCH', '/apps/blue-ci', { models: ['cheap'] }, token)).status, 200);
    const key = await call(gw, 'POST', '/apps/blue-app/keys', { name: 'ci' }, token);
    assert.equal(key.status, 201);
    assert.equal((await call(gw, 'GET', '/apps/blue-app/keys', undefined, token)).status, 200);
    assert.equal(
      (await call(gw, 'POST', `/apps/blue-app/keys/${key.body.id}/rotate`, {}, token)).status,
      201,
    );
    assert.equal(
      (await call(gw, 'DELETE', `/apps/blue-app/keys/${key.body.id}`, undefined, token)).status,
      204,
    );
    assert.equal((await call(gw, 'DELETE', '/apps/blue-ci', undefined, token)).status, 204);
    const audit = await call(gw, 'GET', '/audit', undefined, token);
    assert.equal(audit.status, 200);
    assert.ok(audit.body.data.length > 0);
    assert.ok(audit.body.data.every((e: { team: string }) => e.team === 'blue'));
    assert.ok(audit.body.data.some((e: { actor: string }) => e.actor.startsWith('team-token:')));
    const usage = await call(gw, 'GET', '/usage?app=blue-app', undefined, token);
    assert.equal(usage.status, 200, usage.text);
  });

  it('gets 403 for everything outside its team, route by route', async () => {
    const forbidden: [string, string, unknown?][] = [
      ['GET', '/teams'],
      ['POST', '/teams', { name: 'green' }],
      ['GET', '/teams/red'],
      ['PATCH', '/teams/blue', { limits: { dailyBudgetUsd: 1000 } }],
      ['PATCH', '/teams/red', { limits: { dailyBudgetUsd: 1000 } }],
      ['DELETE', '/teams/red'],
      ['DELETE', '/teams/blue'],
      ['GET', '/teams/blue/tokens'],
      ['POST', '/teams/blue/tokens', {}],
      ['DELETE', '/teams/blue/tokens/tok_000000000000'],
      ['POST', '/apps', { name: 'sneaky', team: 'red' }],
      ['GET', '/apps/red-app'],
      ['PATCH', '/apps/red-app', { models: ['*'] }],
      ['PATCH', '/apps/blue-app', { team: 'red' }],
      ['DELETE', '/apps/red-app'],
      ['GET', '/apps/red-app/keys'],
      ['POST', '/apps/red-app/keys', {}],
      ['DELETE', '/apps/red-app/keys/primary'],
      ['POST', '/apps/red-app/keys/primary/rotate', {}],
      ['GET', '/apps/no-such-app'],
      ['GET', '/audit?team=red'],
      ['GET', '/usage'],
      ['GET', '/usage?app=red-app'],
      ['GET', '/latency'],
      ['GET', '/refusals'],
      ['GET', '/failures'],
      ['GET', '/apps'],
    ];
    for (const [method, url, body] of forbidden) {
      const reply = await call(gw, method, url, body, token);
      assert.equal(reply.status, 403, `${method} ${url}: ${reply.status} ${reply.text.slice(0, 160)}`);
      assert.equal(reply.body.error.code, 'forbidden');
    }
    // Nothing changed.
    assert.equal((await call(gw, 'GET', '/apps/red-app')).body.team, 'red');
    assert.equal((await call(gw, 'GET', '/teams/blue')).body.limits.dailyBudgetUsd, undefined);
  });

  it('stops working once revoked, and a made-up token is a 401', async () => {
    assert.equal(
      (await call(gw, 'GET', '/teams/blue', undefined, bearer(`gwt_tok_000000000000_${'a'.repeat(43)}`)))
        .status,
      401,
    );
    const other = await call(gw, 'POST', '/teams/blue/tokens', { name: 'short-lived' });
    const id = other.body.id;
    assert.equal((await call(gw, 'DELETE', `/teams/blue/tokens/${id}`)).status, 204);
    assert.equal((await call(gw, 'GET', '/teams/blue', undefined, bearer(other.body.token))).status, 401);
  });
});
