import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { chatLine } from '../helpers/batch-files.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { type MockVendorBatches, startMockVendorBatches } from '../helpers/mock-vendor-batches.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

/**
 * kill -9 while a 200-request batch is on OpenAI's Batch API (the recording mock): in the middle
 * of its submission (the vendor made the batch, its answer not yet back), and while it is polled.
 * The restart (and on PostgreSQL a second instance) resumes it from the database: the vendor
 * holds one batch for it, never two, and every custom_id has one result and one ledger row at
 * the batch price.
 */

const APP = 'batcher';
const SECRET = 'vendor-kill-secret-0123456789';
const AUTH = { authorization: `Bearer ${APP}:${SECRET}` };
const REQUESTS = 200;
const CONFIG = { batches: { leaseSeconds: 2, pollIntervalMs: 50, vendorPollMs: 50, vendorPollMaxMs: 200 } };

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
  const lines = Array.from({ length: REQUESTS }, (_, i) => chatLine(`req-${i}`));
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

async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const upstreamOf = (mock: MockVendorBatches, batchId: string) =>
  mock.batches.filter(
    (b) => (b.meta.metadata as Record<string, string> | undefined)?.gateway_batch_id === batchId,
  );

async function checkOnce(server: RunningServer, batchId: string, mock: MockVendorBatches, storage: Storage) {
  let batch: any;
  await until(
    async () => {
      batch = await call(server, `/v1/batches/${batchId}`);
      return batch.status !== 'in_progress';
    },
    60_000,
    'completed',
  );
  assert.equal(batch.status, 'completed');
  assert.deepEqual(batch.request_counts, { total: REQUESTS, completed: REQUESTS, failed: 0 });
  assert.equal(
    upstreamOf(mock, batchId).length,
    1,
    'the vendor holds one batch for it: never submitted twice',
  );
  const output = ((await call(server, `/v1/files/${batch.output_file_id}/content`)) as string)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(output.length, REQUESTS);
  assert.equal(new Set(output.map((r) => r.custom_id)).size, REQUESTS, 'one result per custom_id');
  assert.ok(output.every((r) => r.response.body.choices[0].message.content === `echo:${r.custom_id}`));
  const rows = (await storage.usage.readRecords({ app: APP, limit: 100_000 })).filter(
    (r) => r.batchId === batchId,
  );
  assert.equal(rows.length, REQUESTS, 'one ledger row per request');
  assert.ok(rows.every((r) => r.priceSource === 'genai-prices:batch' && r.costUsd > 0));
  assert.deepEqual(new Set(rows.map((r) => `batch_req_${r.id}`)), new Set(output.map((r) => r.id)));
}

describe('kill -9 while a batch is on a vendor’s batch API', () => {
  let mock: MockVendorBatches;
  before(async () => {
    mock = await startMockVendorBatches();
  });
  after(() => mock.close());
  const vendorEnv = () => ({
    GATEWAY_APPS: `${APP}:${SECRET}`,
    SURFACES: 'gateway',
    CONFIG_FILE: writeConfigFile(CONFIG),
    PROVIDER_A_KIND: 'openai',
    PROVIDER_A_BASE_URL: mock.openaiBaseUrl,
    PROVIDER_A_API_KEY: 'openai-key',
  });

  it('SQLite: killed mid-submission, the restart finds the vendor’s batch instead of sending another', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vendor-kill-'));
    const env = { ...vendorEnv(), DATA_DIR: dataDir };
    mock.createDelayMs = 30_000;
    const first = await spawnServer(env, 1);
    t.after(() => first.stop('SIGKILL'));
    const batchId = await startBatch(first);
    await until(() => upstreamOf(mock, batchId).length === 1, 30_000, 'submitted');
    assert.equal(await first.stop('SIGKILL'), null);
    mock.createDelayMs = 0;
    const second = await spawnServer(env, 1);
    t.after(() => second.stop('SIGKILL'));
    const storage = await openStorage({ dataDir } as never);
    try {
      await checkOnce(second, batchId, mock, storage);
    } finally {
      await storage.close();
    }
  });

  it('SQLite, Anthropic: killed mid-submission, the restart finds the Message Batch by its time and size', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vendor-kill-'));
    const env = {
      ...vendorEnv(),
      DATA_DIR: dataDir,
      PROVIDER_C_KIND: 'anthropic',
      PROVIDER_C_BASE_URL: mock.anthropicOrigin,
      PROVIDER_C_API_KEY: 'anthropic-key',
    };
    mock.createDelayMs = 30_000;
    const first = await spawnServer(env, 1);
    t.after(() => first.stop('SIGKILL'));
    const requests = Array.from({ length: REQUESTS }, (_, i) => ({
      custom_id: `areq-${i}`,
      params: {
        model: 'claude-3-5-haiku-latest',
        max_tokens: 16,
        messages: [{ role: 'user', content: `hi ${i}` }],
      },
    }));
    const made = await call(first, '/v1/messages/batches', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ requests }),
    });
    const upstream = () => mock.batches.filter((b) => b.requests[0]?.custom_id === 'areq-0');
    await until(() => upstream().length === 1, 30_000, 'submitted');
    assert.equal(await first.stop('SIGKILL'), null);
    mock.createDelayMs = 0;
    const second = await spawnServer(env, 1);
    t.after(() => second.stop('SIGKILL'));
    let batch: any;
    await until(
      async () => {
        batch = await call(second, `/v1/messages/batches/${made.id}`);
        return batch.processing_status === 'ended';
      },
      60_000,
      'ended',
    );
    assert.equal(batch.request_counts.succeeded, REQUESTS);
    assert.equal(upstream().length, 1, 'Anthropic holds one Message Batch for it: never submitted twice');
    const answer = await fetch(
      `http://127.0.0.1:${second.gatewayPort}/v1/messages/batches/${made.id}/results`,
      {
        headers: AUTH,
      },
    );
    const results = (await answer.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(new Set(results.map((r) => r.custom_id)).size, REQUESTS, 'one result per custom_id');
    assert.ok(results.every((r) => r.result.message.content[0].text === `echo:${r.custom_id}`));
    const storage = await openStorage({ dataDir } as never);
    try {
      const rows = (await storage.usage.readRecords({ app: APP, limit: 100_000 })).filter(
        (r) => r.batchId === made.id,
      );
      assert.equal(rows.length, REQUESTS, 'one ledger row per request');
      assert.ok(rows.every((r) => r.priceSource === 'genai-prices:batch' && r.frontDoor === 'anthropic'));
    } finally {
      await storage.close();
    }
  });

  it('PostgreSQL, two instances: one killed mid-submission, the survivor finds the batch at the vendor', async (t) => {
    const schema = await createTestSchema();
    t.after(() => schema.drop());
    const env = { ...vendorEnv(), DATABASE_URL: schema.url };
    const a = await spawnServer(env, 1);
    t.after(() => a.stop('SIGKILL'));
    mock.createDelayMs = 30_000;
    const batchId = await startBatch(a);
    // Only now the second instance: the first holds the submission (its lease, 2 s) when it dies.
    const b = await spawnServer(env, 1);
    t.after(() => b.stop('SIGKILL'));
    await until(() => upstreamOf(mock, batchId).length === 1, 30_000, 'submitted');
    assert.equal(await a.stop('SIGKILL'), null);
    mock.createDelayMs = 0;
    const storage = await openStorage({ databaseUrl: schema.url } as never);
    try {
      await checkOnce(b, batchId, mock, storage);
    } finally {
      await storage.close();
    }
  });

  it('PostgreSQL, two instances: one killed while the batch is polled; the other and a restart finish it once', async (t) => {
    const schema = await createTestSchema();
    t.after(() => schema.drop());
    const env = { ...vendorEnv(), DATABASE_URL: schema.url };
    const release = mock.hold();
    t.after(release);
    const [a, b] = await Promise.all([spawnServer(env, 1), spawnServer(env, 1)]);
    t.after(() => a.stop('SIGKILL'));
    t.after(() => b.stop('SIGKILL'));
    const batchId = await startBatch(a);
    await until(() => (upstreamOf(mock, batchId)[0]?.polls ?? 0) >= 2, 30_000, 'polled');
    assert.equal(await a.stop('SIGKILL'), null);
    const restarted = await spawnServer(env, 1);
    t.after(() => restarted.stop('SIGKILL'));
    release();
    const storage = await openStorage({ databaseUrl: schema.url } as never);
    try {
      await checkOnce(restarted, batchId, mock, storage);
    } finally {
      await storage.close();
    }
  });
});
