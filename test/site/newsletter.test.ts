import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { type SiteHarness, shareSite, withFailingSubscribers } from '../helpers/site-harness.ts';

type Injected = Awaited<ReturnType<SiteHarness['site']['inject']>>;

function signup(
  h: SiteHarness,
  payload: unknown,
  headers: Record<string, string> = {},
  remoteAddress = '198.51.100.1',
) {
  return h.site.inject({
    method: 'POST',
    url: '/api/newsletter',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    remoteAddress,
  });
}

function assertEnvelope(res: Injected, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(res.headers['x-request-id']);
}

/** What a client can observe of an answer, minus what differs per request anyway. */
function observable(res: Injected) {
  const { 'x-request-id': _id, date: _date, ...headers } = res.headers;
  return { status: res.statusCode, body: res.body, headers };
}

describe('POST /api/newsletter without a mail transport (single opt-in)', () => {
  const h = shareSite({ env: { NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1000', MAX_BODY_BYTES: '4096' } });

  it('subscribes at once, stores the normalised address once, with its consent evidence', async () => {
    const res = await signup(
      h,
      { email: '  Ann.Lee@Example.COM ' },
      { 'user-agent': `Browser/1 ${'x'.repeat(500)}` },
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ok: true, status: 'subscribed' });
    const stored = await h.storage.subscribers.findSubscriber('Ann.Lee@example.com');
    assert.equal(stored?.status, 'subscribed');
    assert.equal(stored?.consent.source, 'api');
    assert.equal(stored?.consent.userAgent?.length, 256, 'user agent truncated');
    assert.ok(stored?.consent.ipHash, 'a hash of the client address is kept');
    assert.doesNotMatch(stored?.consent.ipHash ?? '', /198\.51/, 'never the address itself');
    assert.ok(Math.abs((stored?.consent.at ?? 0) - Date.now()) < 5_000);

    await signup(h, { email: 'Ann.Lee@EXAMPLE.com' });
    const again = await h.storage.subscribers.findSubscriber('Ann.Lee@example.com');
    assert.equal(again?.id, stored?.id, 'stored once');
    assert.deepEqual(again?.consent, stored?.consent, 'the original consent stays');
  });

  it('answers identically for a known and an unknown address', async () => {
    await signup(h, { email: 'known@example.com' });
    const known = await signup(h, { email: 'known@example.com' });
    const unknown = await signup(h, { email: 'never-seen@example.com' });
    assert.deepEqual(observable(known), observable(unknown));
  });

  it('records a `source` and ignores unknown fields such as a honeypot', async () => {
    const res = await signup(h, {
      email: 'form@example.com',
      source: 'footer form',
      website: '',
      utm: { a: 1 },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(
      (await h.storage.subscribers.findSubscriber('form@example.com'))?.consent.source,
      'footer form',
    );
  });

  const invalidEmails: [string, unknown][] = [
    ['no email field', {}],
    ['email null', { email: null }],
    ['email a number', { email: 42 }],
    ['email an array', { email: ['a@example.com'] }],
    ['email an object', { email: { address: 'a@example.com' } }],
    ['email true', { email: true }],
    ['email empty', { email: '' }],
    ['email invalid', { email: 'not-an-address' }],
    ['two @', { email: 'a@b@example.com' }],
    ['CRLF injection', { email: 'a@example.com\r\nBcc: b@example.com' }],
    ['quoted local part', { email: '"a b"@example.com' }],
    ['IP literal', { email: 'a@[127.0.0.1]' }],
    ['look-alike letters', { email: 'аdmin@example.com' }],
    ['too long', { email: `${'a'.repeat(250)}@example.com` }],
    ['a JSON array body', [{ email: 'a@example.com' }]],
    ['a JSON string body', '"a@example.com"'],
    ['a JSON null body', 'null'],
    ['a JSON number body', '42'],
  ];
  for (const [name, payload] of invalidEmails) {
    it(`400 invalid_email: ${name}`, async () => {
      assertEnvelope(await signup(h, payload), 400, 'invalid_email');
    });
  }

  it('400 invalid_request for a bad source, naming the field', async () => {
    for (const source of [42, '', 'x'.repeat(65), '<script>', ' leading-space']) {
      const res = await signup(h, { email: 'src@example.com', source });
      assertEnvelope(res, 400, 'invalid_request');
      assert.deepEqual(res.json().error.details[0].path, '/source');
    }
    assert.equal(await h.storage.subscribers.findSubscriber('src@example.com'), undefined);
  });

  for (const payload of ['{bad', '{"email": }', '{"email":"a@example.com"} trailing', '']) {
    it(`400 invalid_json for ${JSON.stringify(payload)}`, async () => {
      assertEnvelope(await signup(h, payload), 400, 'invalid_json');
    });
  }

  it('refuses prototype poisoning with a 400', async () => {
    const res = await signup(h, '{"email":"p@example.com","__proto__":{"admin":true}}');
    assert.equal(res.statusCode, 400);
  });

  it('413 for an oversized body, 415 for a form or text body; never a 500', async () => {
    assertEnvelope(await signup(h, { email: `${'a'.repeat(10_000)}@example.com` }), 413, 'payload_too_large');
    const form = await h.site.inject({
      method: 'POST',
      url: '/api/newsletter',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40example.com',
    });
    assertEnvelope(form, 415, 'unsupported_media_type');
    const text = await h.site.inject({
      method: 'POST',
      url: '/api/newsletter',
      headers: { 'content-type': 'text/plain' },
      payload: 'a@example.com',
    });
    assertEnvelope(text, 415, 'unsupported_media_type');
  });

  it('a 3 KB address within the body limit is a 400, not a 500', async () => {
    const res = await signup(h, { email: 'b'.repeat(3_000) });
    assertEnvelope(res, 400, 'invalid_email');
  });

  it('405 with Allow for other methods', async () => {
    const res = await h.site.inject({ method: 'GET', url: '/api/newsletter' });
    assertEnvelope(res, 405, 'method_not_allowed');
    assert.match(String(res.headers.allow), /POST/);
  });
});

describe('POST /api/newsletter rate limit', () => {
  const h = shareSite({ env: { NEWSLETTER_RATE_LIMIT_PER_MINUTE: '3' } });

  it('answers 429 rate_limited with Retry-After past the limit, per client address', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await signup(h, { email: `r${i}@example.com` }, {}, '203.0.113.9')).statusCode, 200);
    }
    const limited = await signup(h, { email: 'r3@example.com' }, {}, '203.0.113.9');
    assertEnvelope(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(await h.storage.subscribers.findSubscriber('r3@example.com'), undefined, 'nothing stored');
    // Invalid requests count too, so the limit cannot be probed for free.
    assertEnvelope(await signup(h, {}, {}, '203.0.113.9'), 429, 'rate_limited');
    assert.equal((await signup(h, { email: 'other@example.com' }, {}, '203.0.113.10')).statusCode, 200);
  });
});

describe('POST /api/newsletter when the subscriber store fails', () => {
  const h = shareSite(() => ({ storage: withFailingSubscribers(openSqliteStorage(':memory:')) }));

  it('answers 500 upstream_failure without internal detail', async () => {
    const res = await signup(h, { email: 'a@example.com' });
    assertEnvelope(res, 500, 'upstream_failure');
    assert.doesNotMatch(res.body, /SQLITE|secret-path|disk/);
    assert.ok(h.logs.some((line) => line.level === 50 && line.msg === 'subscriber store failed'));
  });

  it('still answers 400 for bad input', async () => {
    assertEnvelope(await signup(h, { email: 'nope' }), 400, 'invalid_email');
  });
});
