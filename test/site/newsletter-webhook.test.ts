import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { extractToken, type SiteHarness, startSite, waitFor } from '../helpers/site-harness.ts';
import { startWebhookServer } from '../helpers/webhook-server.ts';

const SECRET = 'webhook-secret-0123456789';
const FAST_OUTBOX = { pollIntervalMs: 20, backoff: { baseMs: 10, maxMs: 40 }, random: () => 0 };

const signup = (h: SiteHarness, email: string) => h.post('/api/newsletter', { email });

function verifySignature(received: { headers: Record<string, unknown>; body: string }): void {
  const expected = `sha256=${createHmac('sha256', SECRET).update(received.body).digest('hex')}`;
  assert.equal(received.headers['x-newsletter-signature-256'], expected);
}

describe('mailing-list webhook, sync mode', () => {
  it('is called in the request with {email, status, subscribedAt}, signed, with the URL credentials', async (t) => {
    const upstream = await startWebhookServer();
    const h = await startSite(t, {
      env: {
        NEWSLETTER_WEBHOOK_URL: upstream.url.replace('http://', 'http://hook:p%40ss@'),
        NEWSLETTER_WEBHOOK_MODE: 'sync',
        NEWSLETTER_WEBHOOK_SECRET: SECRET,
      },
    });
    // After the site's own after hook: the site stops calling before its upstream goes.
    t.after(() => upstream.close());
    const res = await signup(h, 'Sync@Example.com');
    assert.deepEqual(res.body, { ok: true, status: 'subscribed' });
    assert.equal(upstream.received.length, 1, 'called before the answer');
    const [call] = upstream.received;
    const body = JSON.parse(call?.body ?? '');
    assert.deepEqual(Object.keys(body).sort(), ['email', 'status', 'subscribedAt']);
    assert.equal(body.email, 'Sync@example.com');
    assert.equal(body.status, 'subscribed');
    assert.ok(Math.abs(Date.parse(body.subscribedAt) - Date.now()) < 5_000);
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.equal(call?.headers.authorization, `Basic ${Buffer.from('hook:p@ss').toString('base64')}`);
    assert.match(String(call?.headers['x-newsletter-event-id']), /^evt_/);
    verifySignature({ headers: call?.headers ?? {}, body: call?.body ?? '' });
  });

  it('answers 500 upstream_failure when the upstream fails, keeps the subscriber, and a retry repairs it', async (t) => {
    const upstream = await startWebhookServer((i) => (i < 2 ? 503 : 200));
    const h = await startSite(t, {
      env: { NEWSLETTER_WEBHOOK_URL: upstream.url, NEWSLETTER_WEBHOOK_MODE: 'sync' },
    });
    // After the site's own after hook: the site stops calling before its upstream goes.
    t.after(() => upstream.close());
    const res = await signup(h, 'kept@example.com');
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'upstream_failure');
    assert.doesNotMatch(res.text, /127\.0\.0\.1|503|upstream says no/);
    assert.equal((await h.storage.subscribers.findSubscriber('kept@example.com'))?.status, 'subscribed');

    // A known address gets the same 500 as an unknown one while the upstream is down.
    const known = await signup(h, 'kept@example.com');
    assert.equal(known.status, 500);
    assert.equal((await signup(h, 'kept@example.com')).status, 200, 'told again, now it works');
    assert.equal(JSON.parse(upstream.received.at(-1)?.body ?? '').email, 'kept@example.com');
  });

  it('answers 500 upstream_failure when the upstream is unreachable', async (t) => {
    const gone = await startWebhookServer();
    await gone.close();
    const h = await startSite(t, {
      env: { NEWSLETTER_WEBHOOK_URL: gone.url, NEWSLETTER_WEBHOOK_MODE: 'sync' },
    });
    const res = await signup(h, 'down@example.com');
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'upstream_failure');
  });
});

describe('mailing-list webhook, async mode (outbox)', () => {
  it('answers at once while the upstream is down, then delivers every change exactly once, in order', async (t) => {
    const upstream = await startWebhookServer((i) => (i < 3 ? 503 : 200));
    const h = await startSite(t, {
      captureMail: true,
      env: { NEWSLETTER_WEBHOOK_URL: upstream.url, NEWSLETTER_WEBHOOK_SECRET: SECRET },
      newsletter: { outbox: FAST_OUTBOX },
    });
    // After the site's own after hook: the site stops calling before its upstream goes.
    t.after(() => upstream.close());
    const res = await signup(h, 'queued@example.com');
    assert.deepEqual(res.body, { ok: true, status: 'pending' });
    const [mail] = await h.waitForMails(1);
    const confirm = await h.get(`/api/newsletter/confirm?token=${extractToken(mail?.links.confirm)}`);
    assert.equal(confirm.status, 200);

    const delivered = () => upstream.received.filter((r) => r.answered === 200);
    await waitFor(() => (delivered().length >= 2 ? true : undefined), 'two deliveries');
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(
      delivered().map((r) => JSON.parse(r.body).status),
      ['pending', 'subscribed'],
      'each change once, in order',
    );
    assert.equal(upstream.received.length, 5, 'three failures, two deliveries, nothing after');
    const ids = upstream.received.map((r) => r.headers['x-newsletter-event-id']);
    assert.equal(new Set(ids).size, 2, 'a retried change keeps its event id');
    for (const received of upstream.received)
      verifySignature({ headers: received.headers, body: received.body });
    const outbox = await h.storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual(
      outbox.map((e) => e.state),
      ['delivered', 'delivered'],
    );
    assert.deepEqual(await h.storage.subscribers.outboxStats(), {
      pending: 0,
      failed: 0,
      oldestPendingAt: null,
    });
  });

  it('keeps a change that exhausted its attempts as failed, for inspection', async (t) => {
    const upstream = await startWebhookServer(() => 500);
    const h = await startSite(t, {
      env: { NEWSLETTER_WEBHOOK_URL: upstream.url },
      newsletter: { outbox: { ...FAST_OUTBOX, maxAttempts: 3 } },
    });
    // After the site's own after hook: the site stops calling before its upstream goes.
    t.after(() => upstream.close());
    assert.equal((await signup(h, 'lost@example.com')).status, 200);
    await waitFor(() => (upstream.received.length >= 3 ? true : undefined), 'three attempts');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [entry] = await h.storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual(
      [entry?.state, entry?.attempts, entry?.lastError],
      ['failed', 3, 'mailing-list webhook failed: HTTP 500'],
    );
    assert.equal(upstream.received.length, 3);
    assert.equal((await h.storage.subscribers.findSubscriber('lost@example.com'))?.status, 'subscribed');
  });

  it('stops cleanly on close while a delivery hangs, and the change stays pending', async (t) => {
    const upstream = await startWebhookServer(() => 'hang');
    // The site is also closed by hand below, since closing is what this test checks; the harness's
    // own close then finds it closed and closes the storage read after it.
    const h = await startSite(t, {
      env: { NEWSLETTER_WEBHOOK_URL: upstream.url },
      newsletter: { outbox: FAST_OUTBOX },
    });
    t.after(() => upstream.close());
    await signup(h, 'hang@example.com');
    await waitFor(() => (upstream.received.length > 0 ? true : undefined), 'a delivery under way');
    const storage = h.storage;
    const started = Date.now();
    await h.site.close();
    assert.ok(Date.now() - started < 2_000, 'close did not wait for the upstream');
    const [entry] = await storage.subscribers.listOutbox({ limit: 10 });
    assert.deepEqual([entry?.state, entry?.attempts], ['pending', 0]);
  });
});
