import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';

describe('newsletter settings', () => {
  it('default to no mail (single opt-in) and no webhook', () => {
    const { site } = loadConfig({}, []);
    assert.deepEqual(site.mail, { transport: 'none', smtpUrl: undefined, from: 'newsletter@localhost' });
    assert.equal(site.newsletterWebhook, undefined);
    assert.equal(site.newsletterIpHashKey, undefined);
  });

  it('reads SMTP, the webhook and the hash key from the environment', () => {
    const { site } = loadConfig(
      {
        SMTP_URL: 'smtp://user:pass@mail.example.com:587',
        MAIL_FROM: 'Example <news@example.com>',
        NEWSLETTER_WEBHOOK_URL: 'https://lists.example.com/hook',
        NEWSLETTER_WEBHOOK_MODE: 'SYNC',
        NEWSLETTER_WEBHOOK_SECRET: 's'.repeat(32),
        NEWSLETTER_IP_HASH_KEY: 'k'.repeat(32),
      },
      [],
    );
    assert.deepEqual(site.mail, {
      transport: 'smtp',
      smtpUrl: 'smtp://user:pass@mail.example.com:587',
      from: 'Example <news@example.com>',
    });
    assert.deepEqual(site.newsletterWebhook, {
      url: 'https://lists.example.com/hook',
      mode: 'sync',
      secret: 's'.repeat(32),
    });
    assert.equal(site.newsletterIpHashKey, 'k'.repeat(32));
  });

  it('reads the YAML site block, with the environment winning', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
    writeFileSync(
      path,
      'site:\n  mail: { transport: log, from: news@example.com }\n  newsletterWebhook: { url: "http://127.0.0.1:9/x" }\n',
    );
    const { site } = loadConfig({ CONFIG_FILE: path, NEWSLETTER_WEBHOOK_MODE: 'async' }, []);
    assert.deepEqual(site.mail, { transport: 'log', smtpUrl: undefined, from: 'news@example.com' });
    assert.deepEqual(site.newsletterWebhook, {
      url: 'http://127.0.0.1:9/x',
      mode: 'async',
      secret: undefined,
    });
    const typo = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
    writeFileSync(typo, 'site:\n  mail: { transprot: log }\n');
    assert.match(configFailure({ CONFIG_FILE: typo }).message, /transprot/);
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ MAIL_TRANSPORT: 'carrier-pigeon' }, /MAIL_TRANSPORT/],
    [{ MAIL_TRANSPORT: 'smtp' }, /SMTP_URL/],
    [{ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail.example.com' }, /MAIL_FROM/],
    [{ SMTP_URL: 'https://mail.example.com', MAIL_FROM: 'a@example.com' }, /SMTP_URL/],
    [{ SMTP_URL: 'not a url' }, /SMTP_URL/],
    [{ MAIL_TRANSPORT: 'log', MAIL_FROM: 'no-at-sign' }, /MAIL_FROM/],
    [{ MAIL_TRANSPORT: 'log', MAIL_FROM: 'a@example.com\r\nBcc: b@example.com' }, /MAIL_FROM/],
    [{ NEWSLETTER_WEBHOOK_URL: 'ftp://lists.example.com' }, /NEWSLETTER_WEBHOOK_URL/],
    [
      { NEWSLETTER_WEBHOOK_URL: 'https://x.example', NEWSLETTER_WEBHOOK_MODE: 'later' },
      /NEWSLETTER_WEBHOOK_MODE/,
    ],
    [
      { NEWSLETTER_WEBHOOK_URL: 'https://x.example', NEWSLETTER_WEBHOOK_SECRET: 'short' },
      /NEWSLETTER_WEBHOOK_SECRET/,
    ],
    [{ NEWSLETTER_IP_HASH_KEY: 'short' }, /NEWSLETTER_IP_HASH_KEY/],
  ];
  for (const [env, setting] of bad) {
    it(`names the bad setting: ${JSON.stringify(env)}`, () => {
      assert.match(configFailure(env).message, setting);
    });
  }

  it('never echoes an SMTP password, a webhook URL or a secret', () => {
    for (const env of [
      { SMTP_URL: 'http://user:hunter2-smtp@mail.example.com' },
      { SMTP_URL: 'smtp://user:hunter2-smtp@' },
      { NEWSLETTER_WEBHOOK_URL: 'ftp://user:hunter2-hook@lists.example.com' },
      { NEWSLETTER_WEBHOOK_URL: 'https://x.example', NEWSLETTER_WEBHOOK_SECRET: 'hunter2' },
      { NEWSLETTER_IP_HASH_KEY: 'hunter2' },
    ]) {
      assert.doesNotMatch(configFailure(env).message, /hunter2/);
    }
  });
});
