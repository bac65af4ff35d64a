import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { DATABASE_FILE } from '../../src/storage/embedded/open-sqlite.ts';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { openPostgresStorage } from '../../src/storage/postgres/pg-storage.ts';
import { createTestSchema, startPostgresRelay, throughRelay } from '../helpers/postgres.ts';
import { createSite, type SiteHarness } from '../helpers/site-harness.ts';
import { breakSqliteHeader } from '../helpers/sqlite-header.ts';
import type { TcpRelay } from '../helpers/tcp-relay.ts';

// Trust auth ignores it: it is there to be looked for where it must not be.
const PASSWORD = 'db-password-never-shown-5c1e';
const A_TOKEN = 'A'.repeat(43);

/**
 * Surface B when PostgreSQL is lost: the health report says so (503), and the newsletter keeps the
 * contract's answer for a failing subscriber store, 500 `upstream_failure` (SEED-interface: "500
 * for upstream failures"), without a word of the driver's error.
 */
describe('site with PostgreSQL lost while running', () => {
  let relay: TcpRelay;
  let drop: () => Promise<void>;
  let url: string;
  let h: SiteHarness;

  before(async () => {
    const schema = await createTestSchema();
    drop = schema.drop;
    relay = await startPostgresRelay();
    const through = throughRelay(schema.url, relay);
    through.password = PASSWORD;
    url = through.toString();
    h = await createSite({ storage: await openPostgresStorage(url) });
  });
  afterEach(() => relay.restore());
  after(async () => {
    await h.close();
    await relay.close();
    await drop();
  });

  const signup = (email: string) => h.post('/api/newsletter', { email });
  /** Answers name nothing of the connection; the log names the cause, never the password. */
  const assertNothingShown = (
    text: string,
    secrets = [PASSWORD, url, String(relay.port), 'ECONNREFUSED'],
  ) => {
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} shown in ${text}`);
  };

  it('health fails with 503; signups and links answer 500 upstream_failure; both recover', async () => {
    assert.equal((await signup('before@example.com')).status, 200);
    await relay.cut('refused');

    const health = await h.get('/api/health');
    assert.equal(health.status, 503);
    assert.equal(health.body.status, 'fail');
    assert.equal(health.body.checks['storage:responseTime'][0].output, 'unavailable');

    for (const reply of [
      await signup('during@example.com'),
      await h.get(`/api/newsletter/confirm?token=${A_TOKEN}`),
      await h.get(`/api/newsletter/unsubscribe?token=${A_TOKEN}`),
    ]) {
      assert.equal(reply.status, 500, reply.text);
      assert.equal(reply.body.error.code, 'upstream_failure');
      assertNothingShown(reply.text);
    }
    const logs = JSON.stringify(h.logs);
    assertNothingShown(logs, [PASSWORD, url]);
    assert.match(logs, /ECONNREFUSED/);

    await relay.restore();
    assert.equal((await h.get('/api/health')).status, 200);
    assert.equal((await signup('during@example.com')).status, 200);
  });

  it('a network partition: a signup answers 500 upstream_failure within the statement bound, not minutes later', async () => {
    // Connections in the pool, so that the signup's transaction goes over one the partition holds.
    assert.equal((await signup('partition-before@example.com')).status, 200);
    await relay.cut('blackhole');
    const started = performance.now();
    const reply = await signup('partition@example.com');
    const seconds = (performance.now() - started) / 1000;
    assert.equal(reply.status, 500, reply.text);
    assert.equal(reply.body.error.code, 'upstream_failure');
    assertNothingShown(reply.text);
    // One statement's bound, 10 s (STATEMENT_TIMEOUT_MS), and no ROLLBACK waiting behind it; the kernel
    // would have waited about 15 minutes.
    assert.ok(seconds < 15, `answered after ${seconds.toFixed(1)} s`);
    await relay.restore();
    assert.equal((await signup('partition@example.com')).status, 200);
  });
});

/**
 * Surface B when the embedded file becomes unreadable: the health report must say so. Its
 * storage check asked SQLite `SELECT 1`, which reads no page of the file, and so passed on a file
 * every other statement refused as "not a database".
 */
describe('site with its embedded file made unreadable while running', () => {
  it('health fails with 503 while the file cannot be read, and passes again once it can', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'site-sqlite-outage-'));
    const h = await createSite({ storage: openSqliteStorage(dataDir) });
    t.after(async () => {
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    assert.equal((await h.post('/api/newsletter', { email: 'before@example.com' })).status, 200);
    assert.equal((await h.get('/api/health')).status, 200);

    const restore = breakSqliteHeader(join(dataDir, DATABASE_FILE));
    const health = await h.get('/api/health');
    assert.equal(health.status, 503, health.text);
    assert.equal(health.body.checks['storage:responseTime'][0].output, 'unavailable');

    restore();
    assert.equal((await h.get('/api/health')).status, 200);
  });
});
