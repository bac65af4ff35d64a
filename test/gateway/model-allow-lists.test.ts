import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const SECRET = 'narrow-secret-0123456789';
const NARROW = { authorization: `Bearer narrow:${SECRET}` };
const messages = [{ role: 'user', content: 'hello' }];

describe('model allow lists (app bounded by team) on every door', () => {
  const gw = shareGateway({
    file: {
      providers: { 'provider-b': { models: ['sim-large'] } },
      routing: { tasks: { cheap: [{ provider: 'provider-a', model: 'sim-small' }] } },
      // The app's list is wider than its team's: the team's bounds it.
      teams: [{ name: 'lean', models: ['cheap', 'provider-a/*'] }],
      apps: [{ name: 'narrow', secret: SECRET, team: 'lean', models: ['*'] }],
    },
  });

  it('serves what both lists allow: a task, a slot/model', async () => {
    const task = await gw.chat({ messages, task: 'cheap' }, { auth: false, headers: NARROW });
    assert.equal(task.status, 200, task.text);
    const pinned = await gw.post(
      '/v1/chat/completions',
      { model: 'provider-a/sim-small', messages },
      { auth: false, headers: NARROW },
    );
    assert.equal(pinned.status, 200, pinned.text);
  });

  it("refuses anything else with 403 model_not_allowed in each door's shape, with no upstream call", async () => {
    const before = gw.calls.length;
    const native = await gw.chat(
      { messages, provider: 'provider-b', model: 'sim-large' },
      { auth: false, headers: NARROW },
    );
    assert.equal(native.status, 403);
    assert.equal(native.body.error.code, 'model_not_allowed');
    assert.match(native.body.error.message, /provider-b\/sim-large/);
    const openai = await gw.post(
      '/v1/chat/completions',
      { model: 'sim-large', messages },
      { auth: false, headers: NARROW },
    );
    assert.equal(openai.status, 403);
    assert.equal(openai.body.error.code, 'model_not_allowed');
    assert.equal(openai.body.error.type, 'permission_error');
    assert.match(openai.body.error.message, /sim-large/);
    const anthropic = await gw.post(
      '/v1/messages',
      { model: 'sim-large', max_tokens: 10, messages },
      { auth: false, headers: { ...NARROW, 'anthropic-version': '2023-06-01' } },
    );
    assert.equal(anthropic.status, 403);
    assert.equal(anthropic.body.type, 'error');
    assert.equal(anthropic.body.error.type, 'permission_error');
    assert.match(anthropic.body.error.message, /sim-large/);
    const responses = await gw.post(
      '/v1/responses',
      { model: 'sim-large', input: 'hello' },
      { auth: false, headers: NARROW },
    );
    assert.equal(responses.status, 403);
    assert.equal(responses.body.error.code, 'model_not_allowed');
    // An unknown task runs the default route: naming one cannot widen a list.
    const invented = await gw.chat(
      { messages, task: 'cheap-but-not-really' },
      { auth: false, headers: NARROW },
    );
    assert.ok(invented.status === 403 || invented.status === 200);
    if (invented.status === 200) assert.equal(invented.body.provider, 'provider-a', 'only the allowed slot');
    assert.equal(gw.calls.length - before, invented.status === 200 ? 1 : 0, 'no upstream call for a refusal');
  });

  it("lists only the models the caller may use, in OpenAI's and Anthropic's shape; others see all", async () => {
    const narrow = await gw.get('/v1/models', { auth: false, headers: NARROW });
    const ids = narrow.body.data.map((m: { id: string }) => m.id);
    assert.ok(ids.includes('cheap'));
    assert.ok(
      ids.includes('provider-a/sim-small') || ids.every((id: string) => !id.startsWith('provider-b')),
    );
    assert.ok(!ids.includes('sim-large') && !ids.includes('provider-b/sim-large'), ids.join());
    const anthropic = await gw.get('/v1/models', {
      auth: false,
      headers: { ...NARROW, 'anthropic-version': '2023-06-01' },
    });
    assert.ok(!anthropic.body.data.some((m: { id: string }) => m.id.includes('sim-large')));
    const everyone = await gw.get('/v1/models');
    assert.ok(everyone.body.data.some((m: { id: string }) => m.id === 'sim-large'));
  });
});

describe('end users', () => {
  const gw = shareGateway({
    file: { limits: { apps: { 'test-app': { perEndUser: { requestsPerMinute: 2 } } } } },
  });

  it('are kept from the header (which wins), metadata.user_id or user, grouped by /v1/usage, limited per end user', async () => {
    const asAna = { headers: { 'x-gateway-end-user': 'ana' } };
    assert.equal((await gw.chat({ messages }, asAna)).status, 200);
    assert.equal(
      (await gw.post('/v1/chat/completions', { model: 'provider-a/sim', messages, user: 'bo' })).status,
      200,
    );
    const both = await gw.post(
      '/v1/chat/completions',
      { model: 'provider-a/sim', messages, user: 'not-me' },
      { headers: { 'x-gateway-end-user': 'ana' } },
    );
    assert.equal(both.status, 200);
    // Ana's third request in the minute is refused by the end user's limit; Bo still goes.
    const third = await gw.chat({ messages }, asAna);
    assert.equal(third.status, 429);
    assert.equal(third.body.error.details.limit, 'end user requests per minute');
    assert.equal((await gw.chat({ messages }, { headers: { 'x-gateway-end-user': 'bo' } })).status, 200);
    const long = 'x'.repeat(300);
    assert.equal((await gw.chat({ messages }, { headers: { 'x-gateway-end-user': long } })).status, 200);
    await gw.app.recorder.flush();
    const usage = await gw.get('/v1/usage?groupBy=endUser');
    assert.equal(usage.status, 200, usage.text);
    const byUser = Object.fromEntries(
      usage.body.rows.map((r: { endUser: string | null; requests: number }) => [r.endUser, r.requests]),
    );
    assert.equal(byUser.ana, 2);
    assert.equal(byUser.bo, 2);
    assert.ok(!(long in byUser), 'a long end user is kept as its hash');
    assert.ok(Object.keys(byUser).some((u) => /^sha256:[0-9a-f]{64}$/.test(u)));
    const metrics = await gw.get('/metrics');
    assert.equal(/ana|sha256:/.test(metrics.text), false, 'no metric carries the end user');
  });
});
