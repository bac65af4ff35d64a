import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { deploymentsSlot, type MockDeployments, startMockDeployments } from '../helpers/mock-deployments.ts';
import { type MockOpenAIServer, openAIErrorFixture, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';
import { type Answer, awayFromMinuteEnd, childPids, postFresh, waitFor } from '../helpers/worker-gateway.ts';

/**
 * CONTRACT 6.8 with two workers and no Redis: one gateway (`node src/main.ts`, GATEWAY_WORKERS=2,
 * the embedded database on disk), every request on a connection of its own so that node:cluster
 * hands the requests to both workers in turn. Each case would fail if the workers counted apart.
 */
const SECRET = 'gws_workers-test-secret-0123456789';
const APPS = ['rpm', 'budget', 'lease', 'cache', 'circuit', 'rest', 'killed', 'drain'] as const;
type App = (typeof APPS)[number];
const MB_KEY = 'sk-b-0123456789abcdef';
const THRESHOLD = 3;

function headersOf(app: App): Record<string, string> {
  return { 'x-gateway-app': app, 'x-gateway-secret': SECRET };
}

describe('two workers without Redis share exact state (CONTRACT 6.8)', () => {
  let server: RunningServer;
  let slotB: MockOpenAIServer;
  let slotC: MockDeployments;
  let port: number;
  let dataDir: string;

  const chat = (app: App, body: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
    postFresh(
      port,
      '/v1/chat',
      { ...headersOf(app), ...extra },
      {
        messages: [{ role: 'user', content: 'Say hello.' }],
        ...body,
      },
    );
  const usage = async (app: App) => {
    const answer = await fetch(`http://127.0.0.1:${port}/v1/usage`, { headers: headersOf(app) });
    return ((await answer.json()) as { totals: { requests: number; errors: number; costUsd: number } })
      .totals;
  };

  before(async () => {
    slotB = await startMockOpenAI({ apiKey: MB_KEY });
    slotC = await startMockDeployments(['east', 'west']);
    const file = writeConfigFile({
      providers: {
        'provider-a': { kind: 'simulated' },
        'provider-b': { kind: 'openai', baseUrl: slotB.baseUrl, apiKey: MB_KEY, chatModel: 'gpt-4o-mini' },
        'provider-c': { ...deploymentsSlot(slotC), chatModel: 'gpt-4o-mini' },
      },
      retry: { maxRetries: 0 },
      circuit: { failureThreshold: THRESHOLD, cooldownMs: 60_000 },
      prices: { 'simulated-chat': { inputPerMTok: 1000, outputPerMTok: 1000 } },
      limits: {
        apps: {
          rpm: { requestsPerMinute: 40 },
          budget: { dailyBudgetUsd: 0.5 },
          lease: { concurrentRequests: 5 },
        },
      },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-workers-'));
    server = await spawnServer({
      GATEWAY_WORKERS: '2',
      CONFIG_FILE: file,
      DATA_DIR: dataDir,
      GATEWAY_APPS: APPS.map((app) => `${app}:${SECRET}`).join(','),
    });
    port = server.gatewayPort as number;
    assert.equal(childPids(server.child.pid as number).length, 2, 'two workers');
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await slotB?.close();
    await slotC?.close();
  });

  it('a 40-per-minute limit answers exactly 40 of 80 simultaneous requests, served by both workers', async () => {
    await awayFromMinuteEnd();
    const before = server.output.length;
    const answers = await Promise.all(Array.from({ length: 80 }, () => chat('rpm')));
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((s) => s === 200).length, 40, `statuses ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 40, `statuses ${statuses}`);
    // Log lines leave each worker in batches (up to 100 ms apart).
    const pids = () =>
      new Set(
        server.output
          .slice(before)
          .filter((line) => line.includes('"url":"/v1/chat"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      );
    await waitFor('both workers to log their answers', 5_000, () => pids().size === 2);
  });

  it('a daily budget: a burst spends past it by at most one request, across both workers', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => chat('budget', { maxTokens: 40 })));
    const served = answers.filter((answer) => answer.status === 200).length;
    assert.ok(served > 0 && served < 40, `served ${served}`);
    await waitFor('the budget rows', 10_000, async () => (await usage('budget')).requests === served);
    const { costUsd } = await usage('budget');
    // One answer costs about $0.05 (10 tokens in, 40 out at $1000/M); two workers counting apart
    // would each spend up to the budget.
    assert.ok(costUsd <= 0.5 + 0.06, `spent ${costUsd} of a $0.50 budget`);
  });

  it('concurrent requests: 5 leases in all, whichever worker holds them, freed when they end', async () => {
    const open = slotB.hold();
    const settled: Answer[] = [];
    const pending = Array.from({ length: 12 }, () =>
      chat('lease', { provider: 'provider-b' }).then((answer) => {
        settled.push(answer);
        return answer;
      }),
    );
    await waitFor('five calls upstream and seven refusals', 20_000, () => {
      return slotB.requests.length === 5 && settled.length === 7;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(slotB.requests.length, 5, 'five calls reached the upstream, no more');
    assert.deepEqual(
      settled.map((answer) => answer.status),
      Array(7).fill(429),
    );
    open();
    const statuses = (await Promise.all(pending)).map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 200).length, 5);
    const again = await chat('lease', { provider: 'provider-b' });
    assert.equal(again.status, 200, 'the leases were released');
    slotB.reset();
  });

  it('the response cache: an answer stored by one worker is a hit on the other', async () => {
    const cached = { 'x-gateway-cache': 'use' };
    const first = await chat('cache', {}, cached);
    assert.equal(first.headers['x-gateway-cache'], 'miss');
    const next = await Promise.all(Array.from({ length: 8 }, () => chat('cache', {}, cached)));
    assert.deepEqual(
      next.map((answer) => answer.headers['x-gateway-cache']),
      Array(8).fill('hit'),
    );
  });

  it('a deployment that answered 429 rests in both workers: it is not called again', async () => {
    slotC.mock('east').failNext(1000, {
      ...openAIErrorFixture('error-429-rate-limit.json'),
      headers: { 'retry-after': '60' },
    });
    for (let i = 0; i < 30 && slotC.counts().east === 0; i++) {
      assert.equal((await chat('rest', { provider: 'provider-c' })).status, 200);
    }
    assert.equal(slotC.counts().east, 1);
    for (let i = 0; i < 16; i++) assert.equal((await chat('rest', { provider: 'provider-c' })).status, 200);
    assert.equal(slotC.counts().east, 1, 'no worker called the resting deployment again');
  });

  it(`a circuit opens for both workers after ${THRESHOLD} failures in all`, async () => {
    slotB.failNext(1000, openAIErrorFixture('error-500-server-error.json'));
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await chat('circuit', { provider: 'provider-b' })).status);
    assert.equal(slotB.requests.length, THRESHOLD, `upstream calls; statuses ${statuses}`);
    assert.ok(
      statuses.every((status) => status >= 500),
      `statuses ${statuses}`,
    );
    slotB.reset();
  });

  it('a worker killed mid-request is replaced at once, and each request it held has its row', async (t) => {
    const west = slotC.mock('west');
    const open = west.hold();
    const calls = slotC.counts().west as number;
    const pending = Array.from({ length: 4 }, () =>
      chat('killed', { provider: 'provider-c' }).catch((error: unknown) => error as Error),
    );
    await waitFor('four calls held upstream', 20_000, () => slotC.counts().west === calls + 4);
    const primary = server.child.pid as number;
    const [victim] = childPids(primary) as [number];
    process.kill(victim, 'SIGKILL');
    const logged = server.output.length;
    // The replacement is started at once; it serves once it has built the application, which takes
    // a second or two on a quiet machine and longer on this shared one, so the wait is generous and
    // the time is reported (docs/operations.md).
    await waitFor('a new worker process', 1_000, () => {
      const pids = childPids(primary);
      return pids.length === 2 && !pids.includes(victim);
    });
    await waitFor('a new worker serving', 30_000, () =>
      server.output.slice(logged).some((line) => line.includes('a new worker serves in place')),
    );
    const line = server.output
      .slice(logged)
      .find((l) => l.includes('a new worker serves in place')) as string;
    t.diagnostic(
      `replacement serving ${(JSON.parse(line) as { afterMs: number }).afterMs} ms after the kill`,
    );
    open();
    const results = await Promise.all(pending);
    const broken = results.filter((result) => result instanceof Error).length;
    const served = results.filter((result) => !(result instanceof Error) && result.status === 200).length;
    assert.equal(broken + served, 4);
    assert.ok(broken >= 1, 'the killed worker held requests');
    await waitFor('a row for every request', 10_000, async () => (await usage('killed')).requests === 4);
    assert.equal((await usage('killed')).errors, broken, 'each lost request is an error row');
    assert.equal((await chat('killed', { provider: 'provider-c' })).status, 200);
  });

  it('SIGTERM to the primary drains every worker: requests in flight finish, their rows are written', async () => {
    const west = slotC.mock('west');
    const open = west.hold();
    const calls = slotC.counts().west as number;
    const pending = Array.from({ length: 4 }, () => chat('drain', { provider: 'provider-c' }));
    await waitFor('four calls held upstream', 20_000, () => slotC.counts().west === calls + 4);
    const exited = new Promise<number | null>((resolve) =>
      server.child.once('exit', (code) => resolve(code)),
    );
    process.kill(server.child.pid as number, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    open();
    const statuses = (await Promise.all(pending)).map((answer) => answer.status);
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    assert.equal(await exited, 0);
    const db = new DatabaseSync(join(dataDir, 'gateway.sqlite'), { readOnly: true });
    const row = db.prepare("SELECT count(*) AS n FROM usage_requests WHERE app = 'drain'").get() as {
      n: number;
    };
    db.close();
    assert.equal(row.n, 4);
  });
});
