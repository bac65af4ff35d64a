import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createGateway, type Harness } from '../helpers/gateway-harness.ts';
import { createTestSchema } from '../helpers/postgres.ts';

const ADMIN_TOKEN = 'admin-token-for-the-change-signal-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const messages = [{ role: 'user', content: 'hi' }];

/** Milliseconds until `gw` serves a chat with `secret` (every 20 ms), failing past `withinMs`. */
async function heldAfter(gw: Harness, secret: string, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const reply = await gw.chat(
      { messages, maxTokens: 1 },
      { auth: false, headers: { authorization: `Bearer ${secret}` } },
    );
    const elapsed = Date.now() - started;
    if (reply.status === 200) return elapsed;
    assert.ok(elapsed < withinMs, `not held within ${withinMs} ms (last answer ${reply.status})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Two instances sharing PostgreSQL and Redis whose polls are a minute apart: what reaches the
 * second instance within a second came by the Redis signal (decision 0026), not by a poll.
 */
describe('governance changes signalled through Redis', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let one: Harness;
  let two: Harness;

  before(async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    const env = {
      ADMIN_TOKEN,
      DATABASE_URL: schema.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: `signal-${randomBytes(4).toString('hex')}:`,
    };
    one = await createGateway({ env, governancePollMs: 60_000 });
    cleanups.push(() => one.close());
    two = await createGateway({ env, governancePollMs: 60_000 });
    cleanups.push(() => two.close());
    // The first chat of an instance loads what later ones reuse: not part of what is timed.
    assert.equal((await two.chat({ messages, maxTokens: 1 })).status, 200);
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const admin = (method: string, url: string, body?: unknown) =>
    one.request({
      method: method as 'POST',
      url: `/admin/api${url}`,
      ...(body === undefined
        ? { headers: { authorization: ADMIN.authorization } }
        : { headers: ADMIN, payload: JSON.stringify(body) }),
    });

  it('a new app, a revoked key and a model cap made on one instance hold on the other within a second', async () => {
    const made = await admin('POST', '/apps', { name: 'signalled' });
    assert.equal(made.status, 201, made.text);
    const secret = made.body.key.secret as string;
    const held = await heldAfter(two, secret, 1_000);
    console.log(`a new app's key held on the second instance after ${held} ms (polls 60 s apart)`);

    const capped = await admin('PATCH', '/apps/signalled', { models: ['no-such-model-*'] });
    assert.equal(capped.status, 200, capped.text);
    const started = Date.now();
    for (;;) {
      const reply = await two.chat(
        { messages, maxTokens: 1 },
        { auth: false, headers: { authorization: `Bearer ${secret}` } },
      );
      if (reply.status === 403) {
        assert.equal(reply.body.error.code, 'model_not_allowed');
        break;
      }
      assert.ok(Date.now() - started < 1_000, 'the cap held on the second instance within a second');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(`a model cap held on the second instance after ${Date.now() - started} ms`);

    const keys = await admin('GET', '/apps/signalled/keys');
    const revoked = await admin('DELETE', `/apps/signalled/keys/${keys.body.data[0].id}`);
    assert.equal(revoked.status, 204, revoked.text);
    const gone = Date.now();
    for (;;) {
      const reply = await two.get('/v1/models', {
        auth: false,
        headers: { authorization: `Bearer ${secret}` },
      });
      if (reply.status === 401) break;
      assert.ok(Date.now() - gone < 1_000, 'the revocation held on the second instance within a second');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('a change nobody announces (written to the store directly) waits for the poll', async () => {
    const stored = await one.app.storage.apps.findApp('test-app');
    await one.app.storage.apps.createApp('unannounced', stored?.secretHash ?? '', Date.now());
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const reply = await two.get('/v1/models', { headers: { 'x-gateway-app': 'unannounced' } });
    assert.equal(reply.status, 401, 'without a signal, a minute-long poll has not read it yet');
    // The next change announced brings every row past the version held, this one too.
    assert.equal((await admin('POST', '/teams', { name: 'announced' })).status, 201);
    for (let tries = 0; ; tries++) {
      if ((await two.get('/v1/models', { headers: { 'x-gateway-app': 'unannounced' } })).status === 200)
        break;
      assert.ok(tries < 50, 'read with the next announced change');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
