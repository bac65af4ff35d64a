import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConfirmationMail } from './confirmation-mail.ts';

const input = {
  to: 'Ann@example.com',
  siteUrl: 'https://www.example.org',
  confirmToken: 'c'.repeat(43),
  unsubscribeToken: 'u'.repeat(43),
  confirmValidDays: 7,
};

describe('buildConfirmationMail', () => {
  const mail = buildConfirmationMail(input);
  const confirm = `https://www.example.org/api/newsletter/confirm?token=${'c'.repeat(43)}`;
  const unsubscribe = `https://www.example.org/api/newsletter/unsubscribe?token=${'u'.repeat(43)}`;

  it('carries both links in the text and the HTML, and names them for the log transport', () => {
    assert.equal(mail.to, 'Ann@example.com');
    assert.ok(mail.text.includes(confirm));
    assert.ok(mail.text.includes(unsubscribe));
    assert.ok(mail.html.includes(`href="${confirm}"`));
    assert.ok(mail.html.includes(`href="${unsubscribe}"`));
    assert.deepEqual(mail.links, { confirm, unsubscribe });
    assert.match(mail.text, /within 7 days/);
  });

  it('offers RFC 8058 one-click unsubscribe', () => {
    assert.equal(mail.headers['List-Unsubscribe'], `<${unsubscribe}>`);
    assert.equal(mail.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
  });

  it('puts no line break into any header value', () => {
    for (const value of [mail.to, mail.subject, ...Object.values(mail.headers)]) {
      assert.doesNotMatch(value, /[\r\n]/);
    }
  });
});
