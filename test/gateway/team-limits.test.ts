import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createGateway, type Harness } from '../helpers/gateway-harness.ts';
import { createTestSchema } from '../helpers/postgres.ts';

const ADMIN_TOKEN = 'admin-token-for-the-team-limit-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PRICES = { 'simulated-chat': { inputPerMTok: 1000, outputPerMTok: 1000 } };
const MAX_TOKENS = 40;
const messages = [{ role: 'user', content: 'hello' }];
/** What one request reserves: its prompt (4 characters a token, rounded up) and maxTokens, at $1000/M. */
const RESERVATION_USD = (Math.ceil('hello'.length / 4) + MAX_TOKENS + 8) * 0.001;

function admin(gw: Harness, method: string, url: string, body?: unknown) {
  return gw.request({
    method: method as 'POST',
    url: `/admin/api${url}`,
    headers: ADMIN,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Sets up a team whose daily budget affords `requests` requests of the kind sent, and two of its apps. */
async function teamAffording(gw: Harness, requests: number): Promise<{ keys: string[]; budget: number }> {
  // One request outside the team tells what a request costs.
  const probe = await gw.chat({ messages, maxTokens: MAX_TOKENS });
  assert.equal(probe.status, 200);
  const cost = probe.body.usage.estimatedCost as number;
  const budget = Number((cost * requests).toFixed(9));
  assert.equal(
    (await admin(gw, 'POST', '/teams', { name: 'search', limits: { dailyBudgetUsd: budget } })).status,
    201,
  );
  const keys = [];
  for (const name of ['search-web', 'search-ci']) {
    const made = await admin(gw, 'POST', '/apps', { name, team: 'search' });
    assert.equal(made.status, 201, made.text);
    keys.push(made.body.key.secret as string);
  }
  return { keys, budget };
}

/** 30 requests at once over the given gateways and keys, in turn; the answers. */
async function burst(targets: { gw: Harness; key: string }[]) {
  return Promise.all(
    Array.from({ length: 30 }, (_, i) => {
      const { gw, key } = targets[i % targets.length] as { gw: Harness; key: string };
      return gw.chat(
        { messages, maxTokens: MAX_TOKENS },
        { auth: false, headers: { authorization: `Bearer ${key}` } },
      );
    }),
  );
}

async function teamSpend(gw: Harness): Promise<number> {
  await gw.app.recorder.flush();
  const usage = await admin(gw, 'GET', '/usage?groupBy=app');
  return usage.body.rows
    .filter((row: { app: string }) => row.app.startsWith('search-'))
    .reduce((sum: number, row: { costUsd: number }) => sum + row.costUsd, 0);
}

function checkRefusals(
  replies: { status: number; body: { error?: { code: string; details?: { limit?: string } } } }[],
) {
  const refused = replies.filter((r) => r.status === 429);
  assert.ok(refused.length >= 19, `refused ${refused.length}`);
  for (const reply of refused) {
    assert.equal(reply.body.error?.code, 'rate_limited');
    assert.equal(reply.body.error?.details?.limit, 'team daily budget');
  }
}

describe('team budget under a concurrent burst', () => {
  it('one instance: 30 at once against a budget for 10 spend at most one reservation past it', async () => {
    const gw = await createGateway({ env: { ADMIN_TOKEN }, file: { prices: PRICES } });
    try {
      const { keys, budget } = await teamAffording(gw, 10);
      const replies = await burst(keys.map((key) => ({ gw, key })));
      const served = replies.filter((r) => r.status === 200).length;
      checkRefusals(replies);
      const spent = await teamSpend(gw);
      console.log(`one instance: served ${served} of 30, spent $${spent.toFixed(6)} of $${budget}`);
      assert.ok(served >= 9 && served <= 11, `served ${served}`);
      assert.ok(spent <= budget + RESERVATION_USD, `spent ${spent} over ${budget} + ${RESERVATION_USD}`);
    } finally {
      await gw.close();
    }
  });

  describe('two instances sharing PostgreSQL and Redis', () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('a change made on one holds on the other within 5 s, and the burst spends at most one reservation past the budget', async () => {
      const schema = await createTestSchema();
      cleanups.push(schema.drop);
      const env = {
        ADMIN_TOKEN,
        DATABASE_URL: schema.url,
        REDIS_URL,
        REDIS_KEY_PREFIX: `team-${randomBytes(4).toString('hex')}:`,
      };
      const one = await createGateway({ env, file: { prices: PRICES } });
      cleanups.push(() => one.close());
      const two = await createGateway({ env, file: { prices: PRICES } });
      cleanups.push(() => two.close());
      // The first chat of an instance loads what later ones reuse (about a second): not part of
      // the propagation timed below.
      assert.equal((await two.chat({ messages, maxTokens: 1 })).status, 200);
      const { keys, budget } = await teamAffording(one, 10);
      // Made last, outside the team: once `two` knows it, it knows the team's apps made before it.
      const probe = (await admin(one, 'POST', '/apps', { name: 'probe' })).body.key.secret as string;
      // The keys were made on `one`: `two` learns of them by polling the store.
      const started = Date.now();
      for (;;) {
        const reply = await two.chat(
          { messages: [{ role: 'user', content: 'hi' }], maxTokens: 1 },
          {
            auth: false,
            headers: { authorization: `Bearer ${probe}` },
          },
        );
        if (reply.status === 200) break;
        assert.ok(Date.now() - started < 5_000, 'held on the other instance within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      console.log(`a new app's key held on the second instance after ${Date.now() - started} ms`);
      const replies = await burst([
        { gw: one, key: keys[0] as string },
        { gw: two, key: keys[1] as string },
      ]);
      const served = replies.filter((r) => r.status === 200).length;
      checkRefusals(replies);
      await two.app.recorder.flush();
      const spent = await teamSpend(one);
      console.log(`two instances: served ${served} of 30, spent $${spent.toFixed(6)} of $${budget}`);
      assert.ok(spent <= budget + RESERVATION_USD, `spent ${spent} over ${budget} + ${RESERVATION_USD}`);
    });
  });
});
