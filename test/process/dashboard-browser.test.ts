import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { CHROMIUM, launchChromium, localOnlyContext } from '../helpers/browser.ts';
import { createGateway, type Harness } from '../helpers/gateway-harness.ts';

const ADMIN_TOKEN = 'browser-test-admin-token-0123456789';
const VIEWS = [
  'cost',
  'tokens',
  'caches',
  'errors',
  'latency',
  'refusals',
  'tools',
  'apps',
  'failures',
] as const;
/** DASHBOARD_SCREENSHOTS=docs/images refreshes the README's pictures; otherwise they go to a temporary folder. */
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'dashboard-shots-'));
const HOUR = 3_600_000;

/**
 * A week of ledger rows over three apps, three models and two providers, with failures and slow
 * calls, prompt-cache reads and writes on chats, and some answers from the response cache.
 */
function seedRecords(now: number): UsageRecord[] {
  const apps = ['web', 'batch', 'support-bot'];
  const models: [string, string][] = [
    ['provider-a', 'gpt-4o-mini'],
    ['provider-b', 'claude-haiku'],
    ['provider-a', 'text-embedding-3-small'],
  ];
  const records: UsageRecord[] = [];
  for (let i = 0; i < 600; i++) {
    const [provider, model] = models[i % 3] as [string, string];
    const failed = i % 23 === 0;
    const chat = !model.includes('embedding');
    const cache = {
      cacheReadTokens: chat ? (i % 5) * 300 : 0,
      cacheWrite5mTokens: chat && i % 7 === 0 ? 120 : 0,
      cacheWrite1hTokens: chat && i % 11 === 0 ? 40 : 0,
    };
    const hit = chat && !failed && i % 13 === 0;
    const failure = (
      [
        [502, 'upstream_error'],
        [504, 'upstream_timeout'],
        [503, 'provider_unavailable'],
      ] as const
    )[Math.floor(i / 23) % 3] as readonly [number, string];
    records.push(
      sampleRecord(`seed-${i}`, {
        app: apps[(i + Math.floor(i / 3)) % 3] as string,
        frontDoor: (['native', 'openai', 'anthropic'] as const)[Math.floor(i / 9) % 3] as 'native',
        provider,
        model,
        operation: model.includes('embedding') ? 'embed' : 'chat',
        createdAt: now - ((i * 977) % (7 * 24)) * HOUR - (i % 50) * 1000,
        tokensIn:
          50 + (i % 40) * 10 + cache.cacheReadTokens + cache.cacheWrite5mTokens + cache.cacheWrite1hTokens,
        tokensOut: model.includes('embedding') ? 0 : 100 + (i % 30) * 20,
        costUsd: hit ? 0 : 0.0004 * (1 + (i % 9)),
        ...cache,
        cacheHit: hit,
        costSavedUsd: hit ? 0.0004 * (1 + (i % 9)) : 0,
        latencyMs: 80 + ((i * 37) % 900) + (i % 17 === 0 ? 2500 : 0),
        status: failed ? failure[0] : 200,
        errorCode: failed ? failure[1] : null,
      }),
    );
  }
  return records;
}

describe('dashboard in Chromium', () => {
  let gw: Harness;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let foreign: string[];
  let page: Page;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
    gw = await createGateway({
      env: {
        ADMIN_TOKEN,
        GATEWAY_APPS:
          'web:web-secret-0123456789,batch:batch-secret-0123456789,support-bot:bot-secret-0123456789',
      },
      file: {
        limits: {
          apps: { web: { requestsPerMinute: 60 }, batch: { dailyBudgetUsd: 5, monthlyBudgetUsd: 100 } },
        },
      },
    });
    const now = Date.now();
    await gw.app.storage.usage.appendBatch(seedRecords(now));
    const hour = Math.floor(now / HOUR) * HOUR;
    await gw.app.storage.insights.addRefusals([
      { hour, app: 'web', limit: 'requests per minute', refusals: 7 },
      { hour: hour - 30 * HOUR, app: 'batch', limit: 'daily budget', refusals: 3 },
    ]);
    base = await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    ({ context, foreign } = await localOnlyContext(browser, { viewport: { width: 1280, height: 900 } }));
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const admin = async (path: string): Promise<any> => {
    const response = await fetch(`${base}/admin/api/${path}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(response.status, 200);
    return response.json();
  };

  it('refuses a wrong token and sets no cookie', async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('Admin token').fill('not-the-admin-token');
    const [response] = await Promise.all([
      page.waitForResponse('**/dashboard/sign-in'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    assert.equal(response.status(), 401);
    assert.equal(await page.getByRole('alert').textContent(), 'That is not the admin token.');
    assert.deepEqual(await context.cookies(), []);
  });

  it('signs in into an HttpOnly, SameSite=Strict session cookie', async () => {
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Cost and requests over time' }).waitFor();
    const cookies = await context.cookies();
    assert.equal(cookies.length, 1);
    const [cookie] = cookies;
    assert.equal(cookie?.name, 'gateway_admin');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.equal(cookie?.secure, false, 'plain http here; an https public URL makes it Secure');
    assert.equal(
      await page.evaluate(() => (globalThis as any).document.cookie),
      '',
      'no script can read the session',
    );
  });

  it('draws every view from the seeded ledger: charts with pixels, tables with rows', async () => {
    for (const view of VIEWS) await page.locator(`#view-${view}[data-loaded="true"]`).waitFor();
    const canvases = await page.locator('canvas').evaluateAll((nodes) =>
      nodes.map((canvas) => {
        // Runs in the page: DOM types are not in this project's TypeScript library.
        const c = canvas as any;
        const pixels =
          c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) > 0) painted++;
        return { label: c.getAttribute('aria-label'), painted, width: c.width };
      }),
    );
    assert.ok(canvases.length >= 7, `charts drawn: ${canvases.length}`);
    for (const canvas of canvases) {
      assert.ok(canvas.label !== null && canvas.label.length > 10, 'every chart is labelled');
      assert.ok(
        canvas.painted > 500 && canvas.width > 100,
        `${canvas.label}: ${canvas.painted} pixels painted`,
      );
    }
    const failures = await page.locator('#view-failures tbody tr').count();
    assert.ok(failures >= 20, `failure rows: ${failures}`);
    assert.match((await page.locator('#view-failures tbody').textContent()) ?? '', /upstream_error/);
  });

  it('shows the API’s totals: the same requests, cost, error rate and p95', async () => {
    const tiles = page.locator('#view-cost .tiles');
    const from = await tiles.getAttribute('data-from');
    const to = await tiles.getAttribute('data-to');
    const usage = await admin(`usage?from=${from}&to=${to}`);
    const value = (id: string) => page.getByTestId(id).getAttribute('data-value');
    assert.equal(usage.totals.requests, 600);
    assert.equal(Number(await value('total-requests')), usage.totals.requests);
    assert.equal(Number(await value('total-cost')), usage.totals.costUsd);
    assert.equal(await page.getByTestId('total-requests').textContent(), '600');
    assert.equal(Number(await value('error-rate')), usage.totals.errorRate);
    const latency = await admin(`latency?from=${from}&to=${to}`);
    assert.equal(Number(await value('latency-p95')), latency.overall.p95Ms);
    assert.equal(Number(await value('refusals-total')), 10);
  });

  it('shows the caches as the API counts them: prompt-cache reads and writes, hit rate, money saved', async () => {
    await page.locator('#view-caches[data-loaded="true"]').waitFor();
    const tiles = page.locator('#view-caches .tiles');
    const from = await tiles.getAttribute('data-from');
    const to = await tiles.getAttribute('data-to');
    const { totals } = await admin(`usage?from=${from}&to=${to}`);
    const shown = async (id: string) => {
      const tile = page.getByTestId(id);
      return { value: Number(await tile.getAttribute('data-value')), text: await tile.textContent() };
    };
    assert.ok(totals.tokensInCacheRead > 0 && totals.tokensInCacheWrite > 0 && totals.cacheHits > 0);
    assert.deepEqual(await shown('cache-read-tokens'), {
      value: totals.tokensInCacheRead,
      text: totals.tokensInCacheRead.toLocaleString('en'),
    });
    assert.deepEqual(await shown('cache-write-tokens'), {
      value: totals.tokensInCacheWrite,
      text: totals.tokensInCacheWrite.toLocaleString('en'),
    });
    assert.deepEqual(await shown('cache-hits'), { value: totals.cacheHits, text: String(totals.cacheHits) });
    // The hit rate and the money saved are the API's (hits over requests, to 4 decimals; dollars).
    assert.equal(totals.cacheHitRate, Math.round((totals.cacheHits / totals.requests) * 10_000) / 10_000);
    assert.deepEqual(await shown('cache-hit-rate'), {
      value: totals.cacheHitRate,
      text: `${(totals.cacheHitRate * 100).toFixed(2)}%`,
    });
    assert.deepEqual(await shown('cost-saved'), {
      value: totals.costSavedUsd,
      text: `$${totals.costSavedUsd.toFixed(totals.costSavedUsd < 1 ? 4 : 2)}`,
    });
    // The table behind the charts holds the API's rows: its cache-read column sums to the total.
    const cells = await page
      .locator('#view-caches details.data tbody tr')
      .evaluateAll((rows) => rows.map((row) => (row as any).children[2].textContent as string));
    assert.equal(
      cells.reduce((sum, text) => sum + Number(text.replaceAll(',', '')), 0),
      totals.tokensInCacheRead,
    );
  });

  it('changes a view’s range and stacking from the keyboard', async () => {
    const range = page.locator('#view-cost select.range');
    await range.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await range.selectOption('24h');
    await page.locator('#view-cost:not([aria-busy]) .tiles').waitFor();
    await page.locator('#view-cost .stack-by').selectOption('model');
    await page.locator('#view-cost:not([aria-busy]) details.data').waitFor();
    const header = await page.locator('#view-cost details.data thead').textContent();
    assert.match(header ?? '', /hour.*model/);
    await range.selectOption('7d');
    await page.locator('#view-cost .stack-by').selectOption('app');
    await page.locator('#view-cost:not([aria-busy]) .tiles').waitFor();
  });

  it('saves a screenshot of each view', async () => {
    for (const view of VIEWS) {
      await page.locator(`#view-${view}[data-loaded="true"]:not([aria-busy])`).waitFor();
      await page.locator(`#view-${view}`).screenshot({ path: join(SHOTS, `dashboard-${view}.png`) });
    }
  });

  it('fits a phone’s width without sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('#view-cost[data-loaded="true"]').waitFor();
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    const overflow = await page.evaluate(
      () => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth,
    );
    assert.ok(overflow <= 0, `page wider than the phone by ${overflow}px`);
    await page.screenshot({ path: join(SHOTS, 'dashboard-phone.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('signs out: the cookie is gone and the API refuses the old session', async () => {
    const [old] = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    assert.deepEqual(await context.cookies(), []);
    const response = await fetch(`${base}/admin/api/usage`, {
      headers: { cookie: `${old?.name}=${old?.value}` },
    });
    assert.equal(response.status, 401);
  });

  it('sent no request beyond this machine', () => {
    assert.deepEqual(foreign, []);
  });
});
