import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import type { ConfigFile } from './config-file-schema.ts';
import {
  MAIL_TRANSPORTS,
  type MailSettings,
  NEWSLETTER_WEBHOOK_MODES,
  type NewsletterWebhookSettings,
  type SiteSettings,
} from './config-types.ts';
import type { EnvReader } from './read-env.ts';

const LOG_TRANSPORT_FROM = 'newsletter@localhost';
/** HMAC keys shorter than this are too easy to guess to be worth having. */
const MIN_KEY_LENGTH = 16;

type SiteFileSettings = NonNullable<ConfigFile['site']>;
type NewsletterSettings = Pick<SiteSettings, 'mail' | 'newsletterWebhook' | 'newsletterIpHashKey'>;

/**
 * The newsletter's mail transport, mailing-list webhook and consent-hash key. Environment
 * variables win over the YAML `site` block. Errors name the setting and never echo a URL that may
 * hold a password, or a secret.
 */
export function readNewsletterSettings(read: EnvReader, file: SiteFileSettings): NewsletterSettings {
  return {
    mail: readMail(read, file),
    newsletterWebhook: readWebhook(read, file),
    newsletterIpHashKey: checkKey(
      'NEWSLETTER_IP_HASH_KEY (site.newsletterIpHashKey)',
      read.string('NEWSLETTER_IP_HASH_KEY') ?? file.newsletterIpHashKey,
    ),
  };
}

function readMail(read: EnvReader, file: SiteFileSettings): MailSettings {
  const smtpUrl = checkUrl(
    'SMTP_URL (site.mail.smtpUrl)',
    read.string('SMTP_URL') ?? file.mail?.smtpUrl,
    ['smtp:', 'smtps:'],
    { requireHost: true },
  );
  // Setting SMTP_URL alone means "send mail": silently staying single opt-in would surprise.
  const transport =
    read.oneOf('MAIL_TRANSPORT', MAIL_TRANSPORTS) ??
    file.mail?.transport ??
    (smtpUrl === undefined ? 'none' : 'smtp');
  const from = read.string('MAIL_FROM') ?? file.mail?.from;
  if (transport === 'smtp') {
    if (smtpUrl === undefined) throw new ConfigError('SMTP_URL', 'is required when MAIL_TRANSPORT is smtp');
    if (from === undefined) throw new ConfigError('MAIL_FROM', 'is required when MAIL_TRANSPORT is smtp');
  }
  if (from !== undefined) checkFrom(from);
  return { transport, smtpUrl, from: from ?? LOG_TRANSPORT_FROM };
}

function readWebhook(read: EnvReader, file: SiteFileSettings): NewsletterWebhookSettings | undefined {
  const url = checkUrl(
    'NEWSLETTER_WEBHOOK_URL (site.newsletterWebhook.url)',
    read.string('NEWSLETTER_WEBHOOK_URL') ?? file.newsletterWebhook?.url,
    ['http:', 'https:'],
    { requireHost: true },
  );
  const mode =
    read.oneOf('NEWSLETTER_WEBHOOK_MODE', NEWSLETTER_WEBHOOK_MODES) ??
    file.newsletterWebhook?.mode ??
    'async';
  const secret = checkKey(
    'NEWSLETTER_WEBHOOK_SECRET (site.newsletterWebhook.secret)',
    read.string('NEWSLETTER_WEBHOOK_SECRET') ?? file.newsletterWebhook?.secret,
  );
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
