import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import type { SiteFileSettings } from './config-file-schema.ts';
import type { MailSettings, NewsletterWebhookSettings, SiteSettings } from './config-types.ts';

const LOG_TRANSPORT_FROM = 'newsletter@localhost';
/** HMAC keys shorter than this are too easy to guess to be worth having. */
const MIN_KEY_LENGTH = 16;

type NewsletterSettings = Pick<SiteSettings, 'mail' | 'newsletterWebhook' | 'newsletterIpHashKey'>;

/**
 * The newsletter's mail transport, mailing-list webhook and consent-hash key, from the YAML
 * `site` block with the environment laid over it. Errors name the setting and never echo a URL
 * that may hold a password, or a secret.
 */
export function readNewsletterSettings(site: SiteFileSettings): NewsletterSettings {
  return {
    mail: readMail(site),
    newsletterWebhook: readWebhook(site),
    newsletterIpHashKey: checkKey(
      'NEWSLETTER_IP_HASH_KEY (site.newsletterIpHashKey)',
      site.newsletterIpHashKey,
    ),
  };
}

function readMail(site: SiteFileSettings): MailSettings {
  const smtpUrl = checkUrl('SMTP_URL (site.mail.smtpUrl)', site.mail?.smtpUrl, ['smtp:', 'smtps:'], {
    requireHost: true,
  });
  // Setting SMTP_URL alone means "send mail": silently staying single opt-in would surprise.
  const transport = site.mail?.transport ?? (smtpUrl === undefined ? 'none' : 'smtp');
  const from = site.mail?.from;
  if (transport === 'smtp') {
    if (smtpUrl === undefined) throw new ConfigError('SMTP_URL', 'is required when MAIL_TRANSPORT is smtp');
    if (from === undefined) throw new ConfigError('MAIL_FROM', 'is required when MAIL_TRANSPORT is smtp');
  }
  if (from !== undefined) checkFrom(from);
  return { transport, smtpUrl, from: from ?? LOG_TRANSPORT_FROM };
}

function readWebhook(site: SiteFileSettings): NewsletterWebhookSettings | undefined {
  // The environment may set the mode or secret alone, so `url` can be missing here.
  const webhook: Partial<NonNullable<SiteFileSettings['newsletterWebhook']>> = site.newsletterWebhook ?? {};
  const url = checkUrl(
    'NEWSLETTER_WEBHOOK_URL (site.newsletterWebhook.url)',
    webhook.url,
    ['http:', 'https:'],
    {
      requireHost: true,
    },
  );
  const mode = webhook.mode ?? 'async';
  const secret = checkKey('NEWSLETTER_WEBHOOK_SECRET (site.newsletterWebhook.secret)', webhook.secret);
  return url === undefined ? undefined : { url, mode, secret };
}

function checkKey(setting: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.length < MIN_KEY_LENGTH) {
    throw new ConfigError(setting, `must be at least ${MIN_KEY_LENGTH} characters long`);
  }
  return value;
}

// `addr@host` or `Display Name <addr@host>`; no line breaks, which would let it inject mail headers.
const FROM_PATTERN = /^(?:[^<>\p{Cc}]*<[^\s<>@\p{Cc}]+@[^\s<>@\p{Cc}]+>|[^\s<>@\p{Cc}]+@[^\s<>@\p{Cc}]+)$/u;

function checkFrom(from: string): void {
  if (!FROM_PATTERN.test(from)) {
    throw new ConfigError(
      'MAIL_FROM',
      `must be an address like news@example.com or "Name <news@example.com>" (got '${from.replace(/\p{Cc}/gu, '?')}')`,
    );
  }
}
