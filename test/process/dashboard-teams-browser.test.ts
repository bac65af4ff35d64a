import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium, localOnlyContext } from '../helpers/browser.ts';
import { createGateway, type Harness } from '../helpers/gateway-harness.ts';
import { seedTeams, TEAM_SEED } from '../helpers/team-ledger-seed.ts';

const ADMIN_TOKEN = 'browser-teams-admin-token-0123456789';
const { expected } = TEAM_SEED;
/** DASHBOARD_SCREENSHOTS=docs/images refreshes the README's pictures; otherwise a temporary folder. */
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'dashboard-teams-shots-'));

/** A table's body cells, row by row, as the page shows them. */
function cells(page: Page, testId: string): Promise<string[][]> {
  return page
    .getByTestId(testId)
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...(row as any).children].map((cell: any) => (cell.textContent as string).trim())),
    );
}

const usd = (value: number) => `$${value.toFixed(value !== 0 && value < 1 ? 4 : 2)}`;

describe('dashboard in Chromium: teams, people, budgets and guardrails from seeded ledger rows', () => {
  let gw: Harness;
  let browser: Browser;
  let page: Page;
  let foreign: string[];

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
    gw = await createGateway({ env: { ADMIN_TOKEN } });
    await seedTeams(gw, ADMIN_TOKEN);
    const base = await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const made = await localOnlyContext(browser, { viewport: { width: 1280, height: 900 } });
    foreign = made.foreign;
    page = await made.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('shows spend by team, and by team and app, as the ledger sums it', async () => {
    await page.locator('#view-teams[data-loaded="true"]').waitFor();
    assert.deepEqual(
      (await cells(page, 'team-spend')).map(([team, requests, , , , cost]) => [team, requests, cost]),
      [
        ['infra', '8', usd(expected.teamCost.infra)],
        ['search', '15', usd(expected.teamCost.search)],
        ['(no team)', '3', usd(expected.teamCost.none)],
      ],
    );
    assert.equal(Number(await page.getByTestId('teams-total-cost').getAttribute('data-value')), 0.78);
    assert.deepEqual(
      (await cells(page, 'team-app-spend')).filter(([team]) => team === 'search'),
      [
        ['search', 'search-ci', '5', usd(0.15)],
        ['search', 'search-web', '10', usd(0.2)],
      ],
    );
    const painted = await page.locator('#view-teams canvas').evaluate((canvas: any) => {
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) count++;
      return count;
    });
    assert.ok(painted > 500, `team chart: ${painted} pixels painted`);
  });

  it("shows each budget's use: spent against the limit, as a bar and a percentage", async () => {
    const rows = await cells(page, 'budgets');
    const shown = rows.map(([scope, name, window, spent, limit, used]) => ({
      scope,
      name,
      window,
      spent,
      limit,
      used,
    }));
    assert.deepEqual(
      shown,
      expected.budgets.map((b) => ({
        scope: b.scope === 'endUser' ? 'end user' : b.scope,
        name: 'app' in b ? `${b.name} (${b.app === null ? `team ${b.team}` : `app ${b.app}`})` : b.name,
        window: b.window,
        spent: usd(b.spentUsd),
        limit: usd(b.limitUsd),
        used: `${(b.used * 100).toFixed(2)}%`,
      })),
    );
    const meters = await page
      .getByTestId('budgets')
      .locator('meter')
      .evaluateAll((nodes) => nodes.map((m: any) => Number(m.value)));
    // A bar is full at the limit; the figure beside it says by how much a budget went over (120%).
    assert.deepEqual(
      meters,
      expected.budgets.map((b) => Math.min(b.used, 1)),
    );
  });

  it("shows one app's spend by person, and another's when the app is picked", async () => {
    await page.locator('#view-people[data-loaded="true"]').waitFor();
    const section = page.locator('#view-people');
    await section.locator('select.app-pick').selectOption('search-web');
    await page
      .locator('#view-people:not([aria-busy]) [data-testid="people-spend"] caption', {
        hasText: 'search-web',
      })
      .waitFor();
    assert.deepEqual(
      (await cells(page, 'people-spend')).map(([person, requests, , , , cost]) => [person, requests, cost]),
      [
        ['alice', '6', usd(expected.searchWebByPerson.alice.costUsd)],
        ['bob', '4', usd(expected.searchWebByPerson.bob.costUsd)],
      ],
    );
    assert.equal(await page.getByTestId('people-count').getAttribute('data-value'), '2');
    await section.locator('select.app-pick').selectOption('infra-bot');
    await page
      .locator('#view-people:not([aria-busy]) [data-testid="people-spend"] caption', { hasText: 'infra-bot' })
      .waitFor();
    assert.deepEqual(
      (await cells(page, 'people-spend')).map(([person, requests]) => [person, requests]),
      [['carol', '8']],
    );
  });

  it('shows what guardrails did: requests per guard, phase and action', async () => {
    await page.locator('#view-guardrails[data-loaded="true"]').waitFor();
    assert.deepEqual(
      await cells(page, 'guardrail-actions'),
      expected.guardrails.map((g) => [g.guard, g.phase, g.action, String(g.requests)]),
    );
    assert.equal(await page.getByTestId('guardrail-blocks').getAttribute('data-value'), '2');
  });

  it('saves a screenshot of each of these views', async () => {
    mkdirSync(SHOTS, { recursive: true });
    for (const view of ['teams', 'people', 'guardrails']) {
      await page.locator(`#view-${view}[data-loaded="true"]:not([aria-busy])`).waitFor();
      await page.locator(`#view-${view}`).screenshot({ path: join(SHOTS, `dashboard-${view}.png`) });
    }
  });

  it('sent no request beyond this machine', () => {
    assert.deepEqual(foreign, []);
  });
});
