import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { slowChatLine } from '../helpers/batch-files.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

const APP = 'batcher';
const SECRET = 'batch-kill-secret-0123456789';
const AUTH = { authorization: `Bearer ${APP}:${SECRET}` };
const REQUESTS = 200;

/** Short leases so a killed instance's requests are taken again within seconds; 100 ms answers. */
const CONFIG = { batches: { leaseSeconds: 2, pollIntervalMs: 100, concurrency: 4 } };

async function call(server: RunningServer, path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`http://127.0.0.1:${server.gatewayPort}${path}`, {
    ...init,
    headers: { ...AUTH, ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return path.endsWith('/content') ? text : JSON.parse(text);
}

async function startBatch(server: RunningServer): Promise<string> {
  const form = new FormData();
  form.set('purpose', 'batch');
  const lines = Array.from({ length: REQUESTS }, (_, i) => slowChatLine(`req-${i}`, 100));
  form.set('file', new Blob([lines.join('\n')]), 'batch.jsonl');
  const file = await call(server, '/v1/files', { method: 'POST', body: form });
  const batch = await call(server, '/v1/batches', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    }),
  });
  return batch.id as string;
}

async function waitFor(
  server: RunningServer,
  batchId: string,
  done: (batch: any) => boolean,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await call(server, `/v1/batches/${batchId}`);
    if (done(batch)) return batch;
    if (Date.now() > deadline)
      throw new Error(`batch not there in ${timeoutMs} ms: ${JSON.stringify(batch)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every custom_id once in the output file, and exactly one ledger row per request of the batch. */
async function checkOnce(server: RunningServer, batch: any, storage: Storage): Promise<void> {
  assert.equal(batch.status, 'completed');
  assert.deepEqual(batch.request_counts, { total: REQUESTS, completed: REQUESTS, failed: 0 });
  const output = (await call(server, `/v1/files/${batch.output_file_id}/content`)) as string;
  const results = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(results.length, REQUESTS);
  assert.equal(new Set(results.map((r) => r.custom_id)).size, REQUESTS, 'one result per custom_id');
  const rows = (await storage.usage.readRecords({ app: APP, limit: 100_000 })).filter(
    (r) => r.batchId === batch.id,
  );
  assert.equal(rows.length, REQUESTS, 'one ledger row per request');
  assert.deepEqual(
    new Set(rows.map((r) => `batch_req_${r.id}`)),
    new Set(results.map((r) => r.id)),
    'each result names its own row',
  );
}

describe('kill -9 during a 200-request batch', () => {
  for (const workers of ['1', '2']) {
    it(`SQLite, ${workers} worker(s): a restart resumes it; every custom_id has one result and one ledger row`, async (t) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'batch-kill-'));
      const env = {
        DATA_DIR: dataDir,
        GATEWAY_APPS: `${APP}:${SECRET}`,
        SURFACES: 'gateway',
        CONFIG_FILE: writeConfigFile(CONFIG),
      };
      const first = await spawnServer(env, 1);
      t.after(() => first.stop('SIGKILL'));
      const batchId = await startBatch(first);
      const before = await waitFor(first, batchId, (b) => b.request_counts.completed >= 40, 60_000);
      assert.equal(await first.stop('SIGKILL'), null);
      const second = await spawnServer(env, 1);
      t.after(() => second.stop('SIGKILL'));
      const resumedAt = Date.now();
      const done = await waitFor(second, batchId, (b) => b.status !== 'in_progress', 90_000);
      t.diagnostic(
        `killed at ${before.request_counts.completed}/${REQUESTS} done; the restart finished the rest in ${Date.now() - resumedAt} ms`,
      );
      const storage = await openStorage({ dataDir } as never);
      try {
        await checkOnce(second, done, storage);
      } finally {
        await storage.close();
      }
    });
  }

  it('PostgreSQL, two instances: one killed, the other and its restart finish it, each request once', async (t) => {
    const schema = await createTestSchema();
    t.after(() => schema.drop());
    const env = {
      DATABASE_URL: schema.url,
      GATEWAY_APPS: `${APP}:${SECRET}`,
      SURFACES: 'gateway',
      CONFIG_FILE: writeConfigFile(CONFIG),
    };
    const [a, b] = await Promise.all([spawnServer(env, 1), spawnServer(env, 1)]);
    t.after(() => a.stop('SIGKILL'));
    t.after(() => b.stop('SIGKILL'));
    const batchId = await startBatch(a);
    const before = await waitFor(b, batchId, (batch) => batch.request_counts.completed >= 40, 60_000);
    assert.equal(await a.stop('SIGKILL'), null);
    const restarted = await spawnServer(env, 1);
    t.after(() => restarted.stop('SIGKILL'));
    const resumedAt = Date.now();
    const done = await waitFor(restarted, batchId, (batch) => batch.status !== 'in_progress', 90_000);
    t.diagnostic(
      `killed at ${before.request_counts.completed}/${REQUESTS} done; the survivor and the restart finished the rest in ${Date.now() - resumedAt} ms`,
    );
    const storage = await openStorage({ databaseUrl: schema.url } as never);
    try {
      await checkOnce(b, done, storage);
    } finally {
      await storage.close();
    }
  });
});
