import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeSmtp, startFakeSmtp } from '../../../test/helpers/fake-smtp.ts';
import { buildConfirmationMail } from './confirmation-mail.ts';
import { SmtpMailTransport } from './smtp-mail-transport.ts';

describe('SmtpMailTransport', () => {
  let smtp: FakeSmtp;
  before(async () => {
    smtp = await startFakeSmtp();
  });
  after(() => smtp.server.close());

  const mail = buildConfirmationMail({
    to: 'Reader@example.com',
    siteUrl: 'https://www.example.org',
    confirmToken: 'c'.repeat(43),
    unsubscribeToken: 'u'.repeat(43),
    confirmValidDays: 7,
  });

  it('sends through SMTP_URL with its credentials, MAIL_FROM and the RFC 8058 headers', async () => {
    const transport = new SmtpMailTransport({
      url: `smtp://news:pa55word@127.0.0.1:${smtp.port}`,
      from: 'Example News <news@example.org>',
    });
    await transport.send(mail);
    await transport.close();
    const [sent] = smtp.messages;
    assert.equal(sent?.auth, '\u0000news\u0000pa55word');
    assert.match(sent?.from ?? '', /<news@example\.org>/);
    assert.deepEqual(sent?.to, ['RCPT TO:<Reader@example.com>']);
    const data = (sent?.data ?? '').replace(/\r\n[ \t]+/g, ' ');
    assert.match(data, /^From: Example News <news@example\.org>$/m);
    assert.match(data, /^Subject: Confirm your subscription to www\.example\.org$/m);
    assert.match(
      data,
      /^List-Unsubscribe: <https:\/\/www\.example\.org\/api\/newsletter\/unsubscribe\?token=u{43}>$/m,
    );
    assert.match(data, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    assert.match(data, /multipart\/alternative/);
  });

  it('reports a refusal by code and status, never the password or the server text', async () => {
    smtp.refuseRecipient = '550 5.1.1 mailbox pa55word unavailable';
    const transport = new SmtpMailTransport({
      url: `smtp://news:pa55word@127.0.0.1:${smtp.port}`,
      from: 'news@example.org',
    });
    await assert.rejects(transport.send(mail), (error: Error) => {
      assert.match(error.message, /^SMTP delivery failed: \w+, status 550$/);
      assert.doesNotMatch(error.message, /pa55word|mailbox/);
      return true;
    });
    await transport.close();
    smtp.refuseRecipient = undefined;
  });
});
