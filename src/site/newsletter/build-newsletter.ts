import { randomBytes } from 'node:crypto';
import type { Config } from '../../config/config-types.ts';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import type { Logger } from '../../platform/logger.ts';
import { InProcessLimitStore, type LimitStore } from '../../storage/limit-store.ts';
import type { SubscriberStore } from '../../storage/ports.ts';
import { LogMailTransport } from './log-mail-transport.ts';
import { MailDispatcher, type MailDispatcherOptions } from './mail-dispatcher.ts';
import type { MailTransport } from './mail-transport.ts';
import { NewsletterService } from './newsletter-service.ts';
import { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.ts';
import { createSignupRateLimit, type SignupRateLimit } from './signup-rate-limit.ts';
import { SmtpMailTransport } from './smtp-mail-transport.ts';
import { deliverWebhook } from './webhook-delivery.ts';

/** Replaceable parts, for tests. */
export interface NewsletterOverrides {
  mailTransport?: MailTransport;
  mail?: Partial<MailDispatcherOptions>;
  outbox?: Partial<OutboxWorkerOptions>;
  /** One confirmation mail per address per this interval; 60 s by default. */
  resendAfterMs?: number;
  webhookTimeoutMs?: number;
}

export interface NewsletterBuildInput {
  config: Config;
  subscribers: SubscriberStore;
  /** The counters of the signup limit: shared (Redis) when given, else in this process. */
  limits: LimitStore | undefined;
  logger: Logger;
  clock: Clock;
  overrides?: NewsletterOverrides;
}

export interface Newsletter {
  service: NewsletterService;
  rateLimit: SignupRateLimit;
  /** `none`, `log`, `smtp`, or `custom` for an injected transport: reported by the health check. */
  mailTransport: string;
  /** Present when the mailing-list upstream is in async mode. */
  worker: OutboxWorker | undefined;
  start(): void;
  /** Stops the outbox worker and waits for the mails under way. */
  close(): Promise<void>;
}

const CONFIRM_VALID_DAYS = 7;
const RESEND_AFTER_MS = 60_000;
/** In the request (sync mode) the upstream gets less time than in the background. */
const SYNC_TIMEOUT_MS = 5_000;
const ASYNC_TIMEOUT_MS = 10_000;

/** Builds the newsletter from the `site` settings: mail transport, upstream, outbox worker, limit. */
export function buildNewsletter(input: NewsletterBuildInput): Newsletter {
  const { config, subscribers, clock, overrides = {} } = input;
  const settings = config.site;
  const logger = input.logger.child({ component: 'newsletter' });
  const transport = overrides.mailTransport ?? buildMailTransport(config, logger);
  const mail = transport === undefined ? undefined : new MailDispatcher(transport, logger, overrides.mail);
  const webhook = settings.newsletterWebhook;

  let worker: OutboxWorker | undefined;
  if (webhook?.mode === 'async') {
    const timeoutMs = overrides.webhookTimeoutMs ?? ASYNC_TIMEOUT_MS;
    worker = new OutboxWorker(
      subscribers,
      (entry, signal) =>
        deliverWebhook(
          webhook,
          { email: entry.email, status: entry.subscriberStatus, subscribedAt: entry.subscribedAt },
          { eventId: entry.id, timeoutMs, signal },
        ),
      clock,
      logger,
      overrides.outbox,
    );
  }
  const asyncWorker = worker;
  const service = new NewsletterService({
    store: subscribers,
    clock,
    logger,
    mail,
    upstream:
      webhook === undefined
        ? undefined
        : asyncWorker !== undefined
          ? { mode: 'async', wake: () => asyncWorker.wake() }
          : {
              mode: 'sync',
              notify: (event) =>
                deliverWebhook(webhook, event, {
                  eventId: newId('evt'),
                  timeoutMs: overrides.webhookTimeoutMs ?? SYNC_TIMEOUT_MS,
                }),
            },
    siteUrl: config.publicSiteUrl,
    // Without a configured key the hashes are still keyed, but only comparable within one run.
    ipHashKey: settings.newsletterIpHashKey ?? randomBytes(32).toString('base64url'),
    confirmValidDays: CONFIRM_VALID_DAYS,
    resendAfterMs: overrides.resendAfterMs ?? RESEND_AFTER_MS,
  });
  const rateLimit = createSignupRateLimit(
    input.limits ?? new InProcessLimitStore(),
    settings.newsletterRateLimitPerMinute,
    clock,
    logger,
  );
  return {
    service,
    rateLimit,
    mailTransport: overrides.mailTransport === undefined ? settings.mail.transport : 'custom',
    worker,
    start: () => worker?.start(),
    close: async () => {
      await worker?.stop();
      await mail?.close();
    },
  };
}

function buildMailTransport(config: Config, logger: Logger): MailTransport | undefined {
  const mail = config.site.mail;
  switch (mail.transport) {
    case 'none':
      return undefined;
    case 'log':
      return new LogMailTransport(logger);
    case 'smtp':
      if (mail.smtpUrl === undefined) throw new Error('SMTP_URL is required when MAIL_TRANSPORT is smtp');
      return new SmtpMailTransport({ url: mail.smtpUrl, from: mail.from });
  }
}
