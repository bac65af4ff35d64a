import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { spawnServer } from '../helpers/spawn-server.ts';

const SECRET = 'load-test-secret-0123456789';

describe('SIGTERM in the middle of load', () => {
  it('answers or refuses every request, and every answered request has its ledger row with equal totals', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'load-'));
    const server = await spawnServer(
      { DATA_DIR: dataDir, GATEWAY_APPS: `load:${SECRET}`, SURFACES: 'gateway' },
      1,
    );
    const origin = `http://127.0.0.1:${server.gatewayPort}`;
    const agent = new Agent({ connections: 20 });
    const answers: { id: string; tokensIn: number; tokensOut: number; cost: number }[] = [];
    let refused = 0;
    const total = 300;
    let sent = 0;
    const worker = async () => {
      while (sent < total) {
        sent++;
        try {
          const res = await request(`${origin}/v1/chat`, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/json',
              'x-gateway-app': 'load',
              'x-gateway-secret': SECRET,
            },
            body: JSON.stringify({
              messages: [{ role: 'user', content: `n${sent}` }],
              metadata: { simulated: { latencyMs: 15 } },
            }),
          });
          const body = (await res.body.json()) as any;
          if (res.statusCode === 200) {
            answers.push({
              id: body.id,
              tokensIn: body.usage.tokensIn,
              tokensOut: body.usage.tokensOut,
              cost: body.usage.estimatedCost,
            });
          } else {
            assert.equal(res.statusCode, 503, 'only refusals while closing');
            refused++;
          }
        } catch {
          refused++; // connection refused or reset after the server stopped listening
        }
      }
    };
    const workers = Array.from({ length: 20 }, worker);
    // SIGTERM once 60 answers are in (not after a fixed time: a loaded machine is slow to warm
    // up), with 20 requests in flight and 200-odd still to send.
    while (answers.length < 60 && sent < total) await new Promise((resolve) => setTimeout(resolve, 5));
    const exit = server.stop('SIGTERM');
    await Promise.all(workers);
    assert.equal(await exit, 0);
    await agent.close();
    assert.equal(answers.length + refused, total);
    assert.ok(refused > 0, `the stop came in the middle of load (${refused} refused)`);

    const storage = openSqliteStorage(dataDir);
    const rows = await storage.usage.readRecords({ app: 'load', limit: 10_000 });
    await storage.close();
    const ok = rows.filter((r) => r.status === 200);
    assert.equal(ok.length, answers.length, 'one ledger row per answered request');
    const byId = new Map(ok.map((r) => [r.id, r]));
    for (const answer of answers) assert.ok(byId.has(answer.id), `row for ${answer.id}`);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    assert.equal(sum(ok.map((r) => r.tokensIn)), sum(answers.map((a) => a.tokensIn)));
    assert.equal(sum(ok.map((r) => r.tokensOut)), sum(answers.map((a) => a.tokensOut)));
    assert.ok(Math.abs(sum(ok.map((r) => r.costUsd)) - sum(answers.map((a) => a.cost))) < 1e-9);
  });
});
