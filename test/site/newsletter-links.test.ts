import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashToken } from '../../src/site/newsletter/newsletter-tokens.ts';
import { extractToken, SITE_URL, type SiteHarness, shareSite, waitFor } from '../helpers/site-harness.ts';

const HTML = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };

/** Signs up from a client address of the test's choosing: the rate limit counts per address. */
function signup(h: SiteHarness, email: string, remoteAddress = '198.51.100.7') {
  return h.request({ method: 'POST', url: '/api/newsletter', payload: { email }, remoteAddress });
}

const get = (h: SiteHarness, url: string, headers: Record<string, string> = {}) => h.get(url, { headers });

function pathOf(link: string | undefined): string {
  const url = new URL(link ?? '');
  assert.equal(url.origin, SITE_URL, 'links use PUBLIC_SITE_URL');
  return `${url.pathname}${url.search}`;
}

/** RFC 8058: what a mailbox provider sends, with no cookie and no Accept. */
function oneClick(h: SiteHarness, link: string | undefined) {
  return h.post(pathOf(link), 'List-Unsubscribe=One-Click', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

describe('double opt-in with a mail transport', () => {
  const h = shareSite({ captureMail: true, newsletter: { resendAfterMs: 0 } });

  it('answers pending, mails a confirm link, and the link subscribes the address once', async () => {
    const res = await signup(h, 'Dora@Example.org');
    assert.deepEqual(res.body, { ok: true, status: 'pending' });
    const [mail] = await h.waitForMails(1);
    assert.equal(mail?.to, 'Dora@example.org');
    assert.equal((await h.storage.subscribers.findSubscriber('Dora@example.org'))?.status, 'pending');
    const token = extractToken(mail?.links.confirm);
    const stored = await h.storage.subscribers.findSubscriber('Dora@example.org');
    assert.equal(stored?.confirmTokenHash, hashToken(token), 'only the hash is stored');
    assert.ok(!JSON.stringify(stored).includes(token), 'the token itself is not');

    const confirmed = await get(h, pathOf(mail?.links.confirm));
    assert.equal(confirmed.status, 200);
    assert.deepEqual(confirmed.body, { ok: true, status: 'subscribed' });
    assert.equal((await h.storage.subscribers.findSubscriber('Dora@example.org'))?.status, 'subscribed');
    const requestLines = h.logs.filter((line) => line.msg === 'request completed');
    assert.ok(requestLines.some((line) => line.url === '/api/newsletter/confirm?token=[redacted]'));
    assert.ok(!JSON.stringify(h.logs).includes(token), 'the token stays out of the log');

    const again = await get(h, pathOf(mail?.links.confirm), HTML);
    assert.equal(again.status, 200, 'a second click is no error');
    assert.match(String(again.headers['content-type']), /^text\/html/);
    assert.match(again.text, /Already confirmed/);
    assert.equal(again.headers['referrer-policy'], 'no-referrer');
    assert.match(String(again.headers['content-security-policy']), /default-src 'none'/);
  });

  it('carries RFC 8058 headers, and the one-click POST unsubscribes without cookie or JS', async () => {
    await signup(h, 'erik@example.org');
    const mail = (await h.waitForMails(2)).find((m) => m.to === 'erik@example.org');
    const unsubscribe = mail?.links.unsubscribe;
    assert.equal(mail?.headers['List-Unsubscribe'], `<${unsubscribe}>`);
    assert.equal(mail?.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    await get(h, pathOf(mail?.links.confirm));

    const page = await get(h, pathOf(unsubscribe), HTML);
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post">/);
    assert.match(page.text, /name="List-Unsubscribe" value="One-Click"/);
    assert.equal(
      (await h.storage.subscribers.findSubscriber('erik@example.org'))?.status,
      'subscribed',
      'GET changes nothing',
    );

    const res = await oneClick(h, unsubscribe);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ok: true, status: 'unsubscribed' });
    assert.equal((await h.storage.subscribers.findSubscriber('erik@example.org'))?.status, 'unsubscribed');
    assert.equal((await oneClick(h, unsubscribe)).status, 200, 'repeatable');

    const oldConfirm = await get(h, pathOf(mail?.links.confirm));
    assert.equal(oldConfirm.status, 400, 'the old confirm link cannot re-subscribe');
    assert.equal(oldConfirm.body.error.code, 'invalid_request');
  });

  it('accepts the one-click POST as multipart, with no body, or from the page’s form', async () => {
    const requests: { headers: Record<string, string>; payload?: string }[] = [
      {
        headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
        payload:
          '--XyZ\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--XyZ--\r\n',
      },
      { headers: {} },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...HTML },
        payload: 'List-Unsubscribe=One-Click',
      },
    ];
    for (const [i, request] of requests.entries()) {
      const email = `multi${i}@example.org`;
      await signup(h, email);
      const mail = await waitForMailTo(h, email);
      const res = await h.request({ method: 'POST', url: pathOf(mail.links.unsubscribe), ...request });
      assert.equal(res.status, 200, `${i}: ${res.text}`);
      assert.equal((await h.storage.subscribers.findSubscriber(email))?.status, 'unsubscribed');
    }
  });

  it('re-subscribes an unsubscribed address with a new confirmation', async () => {
    await signup(h, 'back@example.org');
    const first = await waitForMailTo(h, 'back@example.org');
    await oneClick(h, first.links.unsubscribe);
    const count = h.mails.length;
    assert.deepEqual((await signup(h, 'back@example.org')).body, { ok: true, status: 'pending' });
    const [second] = (await h.waitForMails(count + 1)).slice(count);
    assert.equal(second?.to, 'back@example.org');
    assert.equal((await get(h, pathOf(second?.links.confirm))).status, 200);
    assert.equal((await h.storage.subscribers.findSubscriber('back@example.org'))?.status, 'subscribed');
  });

  it('re-sends to a pending address, and only the newest confirm link works', async () => {
    await signup(h, 'twice@example.org');
    const first = await waitForMailTo(h, 'twice@example.org');
    const count = h.mails.length;
    assert.deepEqual((await signup(h, 'twice@example.org')).body, { ok: true, status: 'pending' });
    const [second] = (await h.waitForMails(count + 1)).slice(count);
    assert.equal(second?.to, 'twice@example.org');
    assert.notEqual(second?.links.confirm, first.links.confirm);
    assert.equal((await get(h, pathOf(first.links.confirm))).status, 400);
    assert.equal((await get(h, pathOf(second?.links.confirm))).status, 200);
  });

  it('refuses unknown, malformed and missing tokens with 400 invalid_request, or a page', async () => {
    const bogus = 'A'.repeat(43);
    for (const url of [
      `/api/newsletter/confirm?token=${bogus}`,
      '/api/newsletter/confirm?token=short',
      '/api/newsletter/confirm',
      '/api/newsletter/confirm?token=a&token=b',
      `/api/newsletter/unsubscribe?token=${bogus}`,
      '/api/newsletter/unsubscribe?token=%00%0d%0a',
    ]) {
      const res = await get(h, url);
      assert.equal(res.status, 400, url);
      assert.equal(res.body.error.code, 'invalid_request', url);
      const page = await get(h, url, HTML);
      assert.equal(page.status, 400);
      assert.match(page.text, /This link does not work/);
    }
    const post = await h.request({ method: 'POST', url: `/api/newsletter/unsubscribe?token=${bogus}` });
    assert.equal(post.status, 400);
  });

  it('does not confirm on HEAD (link scanners)', async () => {
    await signup(h, 'scan@example.org');
    const mail = await waitForMailTo(h, 'scan@example.org');
    const head = await h.head(pathOf(mail.links.confirm));
    assert.equal(head.status, 405);
    assert.equal((await h.storage.subscribers.findSubscriber('scan@example.org'))?.status, 'pending');
  });
});

describe('confirm links expire', () => {
  let now = Date.now();
  const h = shareSite({ captureMail: true, clock: { now: () => now, monotonic: () => performance.now() } });

  it('refuses a link older than 7 days and lets a new signup send a fresh one', async () => {
    await signup(h, 'slow@example.org');
    const [mail] = await h.waitForMails(1);
    now += 7 * 86_400_000 + 1;
    const expired = await get(h, pathOf(mail?.links.confirm));
    assert.equal(expired.status, 400);
    assert.match(expired.body.error.message, /expired/);
    await signup(h, 'slow@example.org');
    const [, fresh] = await h.waitForMails(2);
    assert.equal((await get(h, pathOf(fresh?.links.confirm))).status, 200);
  });

  it('sends at most one confirmation per address per minute, answering the same', async () => {
    await signup(h, 'bomb@example.org', '203.0.113.1');
    await waitForMailTo(h, 'bomb@example.org');
    const answers = [];
    for (let i = 2; i < 6; i++) answers.push((await signup(h, 'bomb@example.org', `203.0.113.${i}`)).text);
    assert.ok(answers.every((body) => body === '{"ok":true,"status":"pending"}'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(h.mails.filter((m) => m.to === 'bomb@example.org').length, 1);
    now += 60_000;
    await signup(h, 'bomb@example.org', '203.0.113.9');
    await waitForMailCount(h, 'bomb@example.org', 2);
  });
});

async function waitForMailTo(h: SiteHarness, to: string) {
  const mails = await waitForMailCount(h, to, 1);
  return mails.at(-1) ?? assert.fail('no mail');
}

async function waitForMailCount(h: SiteHarness, to: string, count: number) {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const mails = h.mails.filter((m) => m.to === to);
    if (mails.length >= count) return mails;
    if (Date.now() > deadline) assert.fail(`no mail to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('MAIL_TRANSPORT=log', () => {
  const h = shareSite({ env: { MAIL_TRANSPORT: 'log' } });

  it('writes the recipient, subject and working links to the log at info, nothing more', async () => {
    assert.deepEqual((await signup(h, 'local@example.org')).body, { ok: true, status: 'pending' });
    const line = waitFor(
      () => h.logs.find((entry) => entry.msg === 'mail not sent (MAIL_TRANSPORT=log)'),
      'the mail log line',
    );
    const entry = (await line) as {
      level: number;
      mail: { to: string; subject: string; links: Record<string, string> };
    };
    assert.equal(entry.level, 30);
    assert.deepEqual(Object.keys(entry.mail).sort(), ['links', 'subject', 'to']);
    assert.equal(entry.mail.to, 'local@example.org');
    const confirmed = await get(h, pathOf(entry.mail.links.confirm));
    assert.equal(confirmed.status, 200);
    assert.equal((await oneClick(h, entry.mail.links.unsubscribe)).status, 200);
  });
});
