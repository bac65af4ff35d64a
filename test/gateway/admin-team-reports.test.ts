import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { seedTeams, TEAM_SEED } from '../helpers/team-ledger-seed.ts';

const ADMIN_TOKEN = 'admin-token-for-the-team-report-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const { expected } = TEAM_SEED;

describe('admin API: spend by team and person, budgets, guardrail actions', () => {
  const gw = shareGateway({ env: { ADMIN_TOKEN } });
  const get = async (path: string, headers: Record<string, string> = ADMIN) => {
    const reply = await gw.request({ method: 'GET', url: `/admin/api/${path}`, headers });
    return reply;
  };
  let seeded = false;
  const seed = async () => {
    if (!seeded) await seedTeams(gw, ADMIN_TOKEN);
    seeded = true;
  };

  it('groups spend by team: each app counts for its team, apps in none under null', async () => {
    await seed();
    const reply = await get('usage?groupBy=team');
    assert.equal(reply.status, 200, reply.text);
    const byTeam = Object.fromEntries(
      reply.body.rows.map((r: { team: string | null; costUsd: number; requests: number }) => [
        r.team ?? 'none',
        { costUsd: r.costUsd, requests: r.requests },
      ]),
    );
    // The harness's own app has no team and no rows: only the seeded ones count.
    for (const team of ['search', 'infra', 'none'] as const)
      assert.deepEqual(byTeam[team], {
        costUsd: expected.teamCost[team],
        requests: expected.teamRequests[team],
      });
    assert.equal(reply.body.totals.requests, 26);
    assert.equal(reply.body.totals.costUsd, 0.78);
  });

  it('filters by team and groups by team and app', async () => {
    await seed();
    const reply = await get('usage?groupBy=team,app&team=search');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(
      reply.body.rows.map((r: { team: string; app: string; costUsd: number }) => [r.team, r.app, r.costUsd]),
      [
        ['search', 'search-ci', 0.15],
        ['search', 'search-web', 0.2],
      ],
    );
    assert.equal(reply.body.totals.costUsd, 0.35);
    assert.deepEqual(reply.body.filters, { team: 'search' });
  });

  it("splits one app's spend by the person behind each request", async () => {
    await seed();
    const reply = await get('usage?groupBy=endUser&app=search-web');
    assert.equal(reply.status, 200, reply.text);
    const people = Object.fromEntries(
      reply.body.rows.map((r: { endUser: string; requests: number; costUsd: number }) => [
        r.endUser,
        { requests: r.requests, costUsd: r.costUsd },
      ]),
    );
    assert.deepEqual(people, expected.searchWebByPerson);
    assert.equal(reply.body.totals.requests, 10);
  });

  it('refuses an end-user grouping without an app, or with other groups, as a 400', async () => {
    for (const query of [
      'groupBy=endUser',
      'groupBy=endUser,model&app=search-web',
      'groupBy=endUser&app=solo&team=x',
    ]) {
      const reply = await get(`usage?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.error.code, 'invalid_request');
    }
  });

  it("answers each team's and app's budget with what its window has spent", async () => {
    await seed();
    const reply = await get('budgets');
    assert.equal(reply.status, 200, reply.text);
    const budgets = reply.body.budgets.map(
      ({ scope, name, window, limitUsd, spentUsd, used, app, team }: Record<string, unknown>) => ({
        scope,
        name,
        window,
        limitUsd,
        spentUsd,
        used,
        ...(scope === 'endUser' ? { app, team } : {}),
      }),
    );
    for (const budget of expected.budgets)
      assert.deepEqual(
        budgets.filter(
          (b: { name: string; window: string }) => b.name === budget.name && b.window === budget.window,
        ),
        [budget],
      );
    assert.equal(budgets.length, expected.budgets.length);
    // Each perEndUser budget's end users, in order: the team's first, then the app's, most spent first.
    assert.deepEqual(
      budgets.filter((b: { scope: string }) => b.scope === 'endUser'),
      expected.budgets.filter((b) => b.scope === 'endUser'),
    );
  });

  it('shows at most 20 end users per perEndUser budget, those who spent most', async () => {
    await seed();
    const made = await gw.request({
      method: 'POST',
      url: '/admin/api/apps',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'crowd', limits: { perEndUser: { dailyBudgetUsd: 1 } } }),
    });
    assert.equal(made.status, 201, made.text);
    const now = Date.now();
    const midnight = Math.floor(now / 86_400_000) * 86_400_000;
    await gw.app.storage.usage.appendBatch(
      Array.from({ length: 30 }, (_, i) =>
        sampleRecord(`crowd-${i}`, {
          app: 'crowd',
          endUser: `person-${String(i).padStart(2, '0')}`,
          costUsd: (i + 1) / 100,
          createdAt: Math.max(midnight, now - 1000),
        }),
      ),
    );
    const reply = await get('budgets');
    assert.equal(reply.status, 200, reply.text);
    const crowd = reply.body.budgets.filter((b: { app?: string }) => b.app === 'crowd');
    assert.deepEqual(
      crowd.map((b: { name: string; spentUsd: number }) => [b.name, b.spentUsd]),
      Array.from({ length: 20 }, (_, i) => [`person-${29 - i}`, (30 - i) / 100]),
    );
  });

  it('counts requests per guard, phase and action, never what the guards matched', async () => {
    await seed();
    const reply = await get('guardrails');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body.rows, expected.guardrails);
  });

  it("lets a team admin token read its own team's spend, and nothing of another team's", async () => {
    await seed();
    const made = await gw.request({
      method: 'POST',
      url: '/admin/api/teams/infra/tokens',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'infra lead' }),
    });
    assert.equal(made.status, 201, made.text);
    const team = { authorization: `Bearer ${made.body.token}` };
    const own = await get('usage?team=infra&groupBy=app', team);
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(
      own.body.rows.map((r: { app: string; costUsd: number }) => [r.app, r.costUsd]),
      [['infra-bot', 0.4]],
    );
    const person = await get('usage?groupBy=endUser&app=infra-bot', team);
    assert.equal(person.status, 200);
    assert.equal(person.body.rows[0].endUser, 'carol');
    for (const path of [
      'usage?team=search',
      'usage?groupBy=team',
      'usage?app=search-web',
      'budgets',
      'guardrails',
    ]) {
      const reply = await get(path, team);
      assert.equal(reply.status, 403, path);
      assert.equal(reply.body.error.code, 'forbidden');
    }
  });
});
