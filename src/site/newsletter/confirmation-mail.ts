import type { MailMessage } from './mail-transport.ts';
import { escapeHtml } from './newsletter-pages.ts';

export const CONFIRM_PATH = '/api/newsletter/confirm';
export const UNSUBSCRIBE_PATH = '/api/newsletter/unsubscribe';

export interface ConfirmationMailInput {
  to: string;
  /** PUBLIC_SITE_URL, without a trailing slash. */
  siteUrl: string;
  confirmToken: string;
  unsubscribeToken: string;
  confirmValidDays: number;
}

export function buildConfirmLink(siteUrl: string, token: string): string {
  return `${siteUrl}${CONFIRM_PATH}?token=${encodeURIComponent(token)}`;
}

export function buildUnsubscribeLink(siteUrl: string, token: string): string {
  return `${siteUrl}${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`;
}

/**
 * The double opt-in mail. It carries List-Unsubscribe with RFC 8058 one-click, so "I never asked
 * for this" is one button in the mail client, and the unsubscribe link works without cookies or JS.
 * The recipient has passed the address grammar (no CR/LF), and the links are built from the
 * configured URL and base64url tokens, so nothing here can break out of a header.
 */
export function buildConfirmationMail(input: ConfirmationMailInput): MailMessage {
  const confirm = buildConfirmLink(input.siteUrl, input.confirmToken);
  const unsubscribe = buildUnsubscribeLink(input.siteUrl, input.unsubscribeToken);
  const site = new URL(input.siteUrl).host;
  const days = `${input.confirmValidDays} day${input.confirmValidDays === 1 ? '' : 's'}`;
  const text = [
    'Hello,',
    '',
    `someone, hopefully you, asked to subscribe this address to the newsletter of ${site}.`,
    `To confirm, open this link within ${days}:`,
    '',
    confirm,
    '',
    'If you did not ask for this, ignore this mail: without confirmation nothing is sent to you.',
    'To stop even this confirmation mail from coming again, unsubscribe here:',
    '',
    unsubscribe,
    '',
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p>someone, hopefully you, asked to subscribe this address to the newsletter of ${escapeHtml(site)}.</p>
<p><a href="${escapeHtml(confirm)}">Confirm the subscription</a> (the link is valid for ${days}).</p>
<p>If you did not ask for this, ignore this mail: without confirmation nothing is sent to you.
To stop even this confirmation mail from coming again, <a href="${escapeHtml(unsubscribe)}">unsubscribe</a>.</p>
</body></html>
`;
  return {
    to: input.to,
    subject: `Confirm your subscription to ${site}`,
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
    links: { confirm, unsubscribe },
  };
}
