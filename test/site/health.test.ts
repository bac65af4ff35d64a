import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { sampleSignup } from '../contracts/subscriber-contract.ts';
import { startSite } from '../helpers/site-harness.ts';
import { startWebhookServer } from '../helpers/webhook-server.ts';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

function brokenDatabase() {
  const storage = openSqliteStorage(':memory:');
  return {
    ...storage,
    ping: async () => {
      throw new Error('connection refused to db.internal:5432 as admin');
    },
  };
}

describe('GET /up and GET /api/health', () => {
  it('/up answers 200 text/plain, HEAD too, even when the database is down', async (t) => {
    const h = await startSite(t, { storage: brokenDatabase() });
    const up = await h.get('/up');
    assert.equal(up.status, 200);
    assert.match(String(up.headers['content-type']), /^text\/plain/);
    assert.equal(up.text, 'ok\n');
    assert.ok(up.headers['x-request-id']);
    const head = await h.head('/up');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  it('/api/health passes with its checks, as application/health+json', async (t) => {
    const h = await startSite(t);
    const res = await h.get('/api/health');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/health\+json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.body;
    assert.equal(body.status, 'pass');
    assert.equal(body.version, VERSION);
    assert.equal(body.service, 'public-site-api');
    assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 5_000);
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [storage] = body.checks['storage:responseTime'];
    assert.equal(storage.status, 'pass');
    assert.equal(storage.observedUnit, 'ms');
    assert.equal(typeof storage.observedValue, 'number');
    assert.deepEqual(
      [body.checks['mail:transport'][0].observedValue, body.checks['mail:transport'][0].output],
      ['none', 'no mail transport: single opt-in'],
    );
    assert.equal(body.checks['newsletterOutbox:pending'], undefined, 'no outbox without an async upstream');
    const head = await h.head('/api/health');
    assert.equal(head.status, 200);
  });

  it('/api/health fails with 503 when the database does, without its error text', async (t) => {
    const h = await startSite(t, { storage: brokenDatabase() });
    const res = await h.get('/api/health');
    assert.equal(res.status, 503);
    const body = res.body;
    assert.equal(body.status, 'fail');
    assert.deepEqual(
      [body.checks['storage:responseTime'][0].status, body.checks['storage:responseTime'][0].output],
      ['fail', 'unavailable'],
    );
    assert.doesNotMatch(res.text, /db\.internal|admin|refused/);
  });

  it('/api/health warns about an outbox backlog the upstream is not taking', async (t) => {
    const upstream = await startWebhookServer(() => 503);
    t.after(() => upstream.close());
    const storage = openSqliteStorage(':memory:');
    await storage.subscribers.signUp(
      sampleSignup('old@example.com', Date.now() - 3_600_000, { enqueue: true }),
    );
    const h = await startSite(t, {
      storage,
      env: { NEWSLETTER_WEBHOOK_URL: upstream.url, MAIL_TRANSPORT: 'log' },
    });
    const res = await h.get('/api/health');
    assert.equal(res.status, 200, 'warn is still 200');
    const body = res.body;
    assert.equal(body.status, 'warn');
    assert.equal(body.checks['newsletterOutbox:pending'][0].observedValue, 1);
    const [age] = body.checks['newsletterOutbox:oldestPendingAge'];
    assert.equal(age.status, 'warn');
    assert.ok(age.observedValue >= 3_600 && age.observedValue < 3_700, String(age.observedValue));
    assert.equal(age.observedUnit, 's');
    assert.equal(body.checks['newsletterOutbox:failed'][0].observedValue, 0);
    assert.equal(body.checks['mail:transport'][0].observedValue, 'log');
  });
});
