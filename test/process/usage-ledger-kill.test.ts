import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { driveChatLoad } from '../helpers/chat-load.ts';
import { spawnServer } from '../helpers/spawn-server.ts';

const APP = 'killed';
const SECRET = 'kill-nine-secret-0123456789';
/** The recorder's defaults, as docs/operations.md states the bound with them. */
const FLUSH_INTERVAL_MS = 200;
const BATCH_SIZE = 50;
/** One write on a loaded two-core test machine, and the event loop's lag under this load. */
const SLACK_MS = 300;

/**
 * `kill -9` in the middle of load (with `GET /v1/usage` read meanwhile) may lose only what was
 * not yet flushed: records answered within the last flush interval (plus one write), at most a
 * flush interval's traffic plus one batch. Restarting on the same data directory works.
 */
interface Scenario {
  name: string;
  chatConnections: number;
  latencyMs: number;
  /** Connections reading GET /v1/usage in a loop meanwhile. */
  usageReaders: number;
  /** Kill once this many answers are in (not after a fixed time: a loaded machine is slow to warm up). */
  killAfter: number;
}

// Heavy, with usage reads (which flush): batches fill at once, so what is lost is about the batch
// in flight. Light, without reads: batches do not fill, so records wait for the flush timer, the
// worst case in time.
const SCENARIOS: Scenario[] = [
  {
    name: 'heavy load (16 connections)',
    chatConnections: 16,
    latencyMs: 2,
    usageReaders: 1,
    killAfter: 1_500,
  },
  {
    name: 'light load (1 connection, 20 ms answers)',
    chatConnections: 1,
    latencyMs: 20,
    usageReaders: 0,
    killAfter: 60,
  },
];

describe('kill -9 under load', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: loses only records answered in the last flush interval; the store opens again`, async (t) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'kill-'));
      const env = { DATA_DIR: dataDir, GATEWAY_APPS: `${APP}:${SECRET}`, SURFACES: 'gateway' };
      const server = await spawnServer(env, 1);
      t.after(() => server.stop('SIGKILL'));
      let killedAt: number | undefined;
      let kill: () => void = () => {};
      const enough = new Promise<void>((resolve) => {
        kill = resolve;
      });
      const loading = driveChatLoad({
        origin: `http://127.0.0.1:${server.gatewayPort}`,
        app: APP,
        secret: SECRET,
        chatConnections: scenario.chatConnections,
        latencyMs: scenario.latencyMs,
        usageReaders: scenario.usageReaders,
        total: Number.POSITIVE_INFINITY,
        stop: () => killedAt !== undefined,
        onAnswer: (answers) => {
          if (answers >= scenario.killAfter) kill();
        },
      });
      await enough;
      // At any phase of the flush timer, not just after an answer.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * FLUSH_INTERVAL_MS));
      killedAt = performance.now();
      assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');
      const load = await loading;

      const storage = openSqliteStorage(dataDir);
      const rows = await storage.usage.readRecords({ app: APP, limit: 1_000_000 });
      await storage.close();
      const stored = new Set(rows.map((r) => r.id));
      const ageOf = (at: number) => (killedAt as number) - at;
      const lost = load.answers.filter((a) => !stored.has(a.id));
      const oldest = Math.max(0, ...lost.map((a) => ageOf(a.at)));
      const inLastInterval = load.answers.filter((a) => ageOf(a.at) <= FLUSH_INTERVAL_MS).length;
      const extra = rows.length - (load.answers.length - lost.length);
      console.log(
        `# kill -9, ${scenario.name}: ${load.answers.length} answered, ${rows.length} rows, ${lost.length} lost (the oldest answered ${oldest.toFixed(0)} ms before the kill); ${inLastInterval} answered in the last ${FLUSH_INTERVAL_MS} ms; ${extra} rows of requests cut off unanswered; ${load.usageReads} usage reads`,
      );
      assert.ok(
        oldest <= FLUSH_INTERVAL_MS + SLACK_MS,
        `every lost record was answered within the last flush interval and one write (oldest ${oldest.toFixed(0)} ms)`,
      );
      const recent = load.answers.filter((a) => ageOf(a.at) <= FLUSH_INTERVAL_MS + SLACK_MS).length;
      assert.ok(lost.length <= recent + BATCH_SIZE, `${lost.length} lost, ${recent} answered recently`);
      assert.ok(extra >= 0 && extra <= load.unanswered, 'extra rows only for requests cut off by the kill');

      // The same data directory serves again, and the app reads what survived.
      const again = await spawnServer(env, 1);
      t.after(() => again.stop('SIGKILL'));
      const res = await request(`http://127.0.0.1:${again.gatewayPort}/v1/usage?groupBy=`, {
        headers: { 'x-gateway-app': APP, 'x-gateway-secret': SECRET },
      });
      assert.equal(res.statusCode, 200);
      const report = (await res.body.json()) as { totals: { requests: number } };
      assert.equal(report.totals.requests, rows.length);
      assert.equal(await again.stop('SIGTERM'), 0);
    });
  }
});
