import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { openPostgresStorage } from '../../src/storage/postgres/pg-storage.ts';
import { driveChatLoad } from '../helpers/chat-load.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { spawnServer } from '../helpers/spawn-server.ts';

const APP = 'recon';
const SECRET = 'reconcile-secret-0123456789';
const CHATS = 1_500;

interface Store {
  env: Record<string, string>;
  open(): Promise<Storage>;
  drop(): Promise<void>;
}

async function embedded(): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reconcile-'));
  return { env: { DATA_DIR: dataDir }, open: async () => openSqliteStorage(dataDir), drop: async () => {} };
}

async function postgres(): Promise<Store> {
  const schema = await createTestSchema();
  return {
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'reconcile-pg-')), DATABASE_URL: schema.url },
    open: () => openPostgresStorage(schema.url),
    drop: schema.drop,
  };
}

/**
 * The load: chat requests on 16 connections while 2 other connections read
 * `GET /v1/usage` in a loop (a read flushes the recorder). Before the fix, about 5% of answered
 * requests were missing from the ledger under this load.
 */
describe('the usage ledger reconciles exactly with the answers, while usage is read meanwhile', () => {
  for (const [name, open] of [
    ['embedded', embedded],
    ['PostgreSQL', postgres],
  ] as const) {
    it(`${name}: one row per 200 answered, no more, no fewer`, async (t) => {
      const store = await open();
      t.after(() => store.drop());
      const server = await spawnServer(
        { ...store.env, GATEWAY_APPS: `${APP}:${SECRET}`, SURFACES: 'gateway' },
        1,
      );
      t.after(() => server.stop('SIGKILL'));
      const origin = `http://127.0.0.1:${server.gatewayPort}`;
      const load = await driveChatLoad({
        origin,
        app: APP,
        secret: SECRET,
        chatConnections: 16,
        usageReaders: 2,
        total: CHATS,
      });
      // The app's own view: a read after the load counts every answered request.
      const res = await request(`${origin}/v1/usage?groupBy=`, {
        headers: { 'x-gateway-app': APP, 'x-gateway-secret': SECRET },
      });
      const report = (await res.body.json()) as { totals: { requests: number } };
      assert.equal(await server.stop('SIGTERM'), 0);

      const storage = await store.open();
      const rows = await storage.usage.readRecords({ app: APP, limit: 100_000 });
      await storage.close();
      const stored = new Set(rows.map((r) => r.id));
      const answered = new Set(load.answers.map((a) => a.id));
      const missing = [...answered].filter((id) => !stored.has(id));
      const extra = [...stored].filter((id) => !answered.has(id));
      console.log(
        `# reconcile ${name}: ${answered.size} answered, ${rows.length} rows, ${missing.length} missing, ${extra.length} extra; ${load.usageReads} usage reads; the last read counted ${report.totals.requests}`,
      );
      assert.equal(load.answers.length, CHATS, 'every chat request was answered');
      assert.ok(load.usageReads > 20, `usage was read during the load (${load.usageReads} reads)`);
      assert.deepEqual(load.usageFailures, []);
      assert.deepEqual(missing, [], 'no answered request is missing from the ledger');
      assert.deepEqual(extra, [], 'and the ledger holds nothing else');
      assert.equal(rows.length, stored.size, 'no row twice');
      assert.ok(rows.every((r) => r.status === 200));
      assert.equal(
        report.totals.requests,
        CHATS,
        'GET /v1/usage after the load counts every answered request',
      );
    });
  }
});
