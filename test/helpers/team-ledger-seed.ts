import assert from 'node:assert/strict';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import type { Harness } from './gateway-harness.ts';

/**
 * Two teams, four apps and a ledger of today's requests whose sums are known, for the admin API's
 * spend by team, by end user, budgets and guardrail report, and the dashboard views that draw them.
 */
export const TEAM_SEED = {
  teams: [
    { name: 'search', limits: { dailyBudgetUsd: 1, monthlyBudgetUsd: 20 } },
    { name: 'infra', limits: { dailyBudgetUsd: 0.5, perEndUser: { dailyBudgetUsd: 0.5 } } },
  ],
  apps: [
    {
      name: 'search-web',
      team: 'search',
      limits: { dailyBudgetUsd: 0.4, perEndUser: { dailyBudgetUsd: 0.1 } },
    },
    { name: 'search-ci', team: 'search' },
    { name: 'infra-bot', team: 'infra' },
    { name: 'solo' },
  ],
  /** What the seeded rows add up to. */
  expected: {
    teamCost: { search: 0.35, infra: 0.4, none: 0.03 },
    teamRequests: { search: 15, infra: 8, none: 3 },
    searchWebByPerson: { alice: { requests: 6, costUsd: 0.12 }, bob: { requests: 4, costUsd: 0.08 } },
    budgets: [
      { scope: 'team', name: 'search', window: 'day', limitUsd: 1, spentUsd: 0.35, used: 0.35 },
      { scope: 'team', name: 'search', window: 'month', limitUsd: 20, spentUsd: 0.35, used: 0.0175 },
      { scope: 'team', name: 'infra', window: 'day', limitUsd: 0.5, spentUsd: 0.4, used: 0.8 },
      { scope: 'app', name: 'search-web', window: 'day', limitUsd: 0.4, spentUsd: 0.2, used: 0.5 },
      // perEndUser: the team's across its apps first, then the app's, the most spent first.
      {
        scope: 'endUser',
        name: 'carol',
        window: 'day',
        limitUsd: 0.5,
        spentUsd: 0.4,
        used: 0.8,
        app: null,
        team: 'infra',
      },
      {
        scope: 'endUser',
        name: 'alice',
        window: 'day',
        limitUsd: 0.1,
        spentUsd: 0.12,
        used: 1.2,
        app: 'search-web',
        team: 'search',
      },
      {
        scope: 'endUser',
        name: 'bob',
        window: 'day',
        limitUsd: 0.1,
        spentUsd: 0.08,
        used: 0.8,
        app: 'search-web',
        team: 'search',
      },
    ],
    guardrails: [
      { guard: 'pii', phase: 'input', action: 'mask', requests: 5 },
      { guard: 'secrets', phase: 'output', action: 'block', requests: 2 },
      { guard: 'topic', phase: 'input', action: 'log', requests: 1 },
    ],
  },
} as const;

/** The rows: all in the current UTC day (one second apart at most a minute back, never before midnight). */
export function teamLedgerRows(now: number): UsageRecord[] {
  const midnight = Math.floor(now / 86_400_000) * 86_400_000;
  const at = (i: number) => Math.max(midnight, now - 60_000 + i * 1000);
  const rows: UsageRecord[] = [];
  const add = (
    app: string,
    team: string | null,
    count: number,
    cost: number,
    extra: (i: number) => Partial<UsageRecord>,
  ) => {
    for (let i = 0; i < count; i++)
      rows.push(
        sampleRecord(`team-seed-${app}-${i}`, {
          app,
          team,
          costUsd: cost,
          createdAt: at(rows.length),
          guardrails: null,
          ...extra(i),
        }),
      );
  };
  add('search-web', 'search', 10, 0.02, (i) => ({
    endUser: i < 6 ? 'alice' : 'bob',
    guardrails: i < 3 ? 'pii:input:mask' : i < 5 ? 'pii:input:mask,secrets:output:block' : null,
  }));
  add('search-ci', 'search', 5, 0.03, () => ({}));
  add('infra-bot', 'infra', 8, 0.05, (i) => ({
    endUser: 'carol',
    guardrails: i === 0 ? 'topic:input:log' : null,
  }));
  add('solo', null, 3, 0.01, () => ({}));
  return rows;
}

/** Makes the teams and apps through the admin API and writes the ledger rows. */
export async function seedTeams(gw: Harness, adminToken: string, now = Date.now()): Promise<void> {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  for (const [url, list] of [
    ['/admin/api/teams', TEAM_SEED.teams],
    ['/admin/api/apps', TEAM_SEED.apps],
  ] as const)
    for (const body of list) {
      const made = await gw.request({ method: 'POST', url, headers, payload: JSON.stringify(body) });
      assert.equal(made.status, 201, made.text);
    }
  await gw.app.storage.usage.appendBatch(teamLedgerRows(now));
}
