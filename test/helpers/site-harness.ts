import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { NewsletterOverrides } from '../../src/site/newsletter/build-newsletter.ts';
import type { MailMessage, MailTransport } from '../../src/site/newsletter/mail-transport.ts';
import { buildSiteApp } from '../../src/site/site-app.ts';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import type { Storage, SubscriberStore } from '../../src/storage/ports.ts';
import { type CleanupContext, startForSuite, startForTest } from './harness-lifecycle.ts';
import { bindRequests, type Requests } from './inject-reply.ts';

export const SITE_URL = 'https://www.example.test';

export interface SiteHarnessOptions {
  env?: Record<string, string>;
  /** Defaults to a fresh in-memory database. */
  storage?: Storage;
  /** Capture mail in `mails` (double opt-in) instead of the configured transport. */
  captureMail?: boolean;
  newsletter?: NewsletterOverrides;
  clock?: Clock;
}

export interface SiteHarness extends Requests {
  site: FastifyInstance;
  storage: Storage;
  /** Mails the capturing transport received. */
  mails: MailMessage[];
  /** Every log line, parsed. */
  logs: Record<string, unknown>[];
  /** Waits until `count` mails have arrived (they are sent after the response). */
  waitForMails(count: number): Promise<MailMessage[]>;
  close(): Promise<void>;
}

/** A site for one test, closed (with its storage) when the test ends. */
export function startSite(t: CleanupContext, options: SiteHarnessOptions = {}): Promise<SiteHarness> {
  return startForTest(t, () => createSite(options));
}

/**
 * A site shared by the tests of the enclosing describe, started before them and closed after.
 * Options that depend on an earlier `before` are given as a function, read when the site starts.
 */
export function shareSite(options: SiteHarnessOptions | (() => SiteHarnessOptions) = {}): SiteHarness {
  return startForSuite(() => createSite(typeof options === 'function' ? options() : options));
}

/**
 * Surface B alone, built the way app.ts builds it, with the storage and mail it is given. The caller
 * closes it: for tests about closing; others use startSite or shareSite.
 */
export async function createSite(options: SiteHarnessOptions = {}): Promise<SiteHarness> {
  const config = loadConfig(
    { DATA_DIR: ':memory:', SURFACES: 'site', PUBLIC_SITE_URL: SITE_URL, ...options.env },
    [],
  );
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  const storage = options.storage ?? openSqliteStorage(':memory:');
  const mails: MailMessage[] = [];
  const capture: MailTransport = {
    async send(message) {
      mails.push(message);
    },
  };
  const newsletter: NewsletterOverrides = {
    mail: { retryDelayMs: 1 },
    ...(options.captureMail === true ? { mailTransport: capture } : {}),
    ...options.newsletter,
  };
  const site = await buildSiteApp({
    config,
    logger,
    storage,
    newsletter,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  await site.ready();
  return {
    ...bindRequests(site),
    site,
    storage,
    mails,
    logs,
    waitForMails: (count) => waitFor(() => (mails.length >= count ? mails : undefined), `${count} mails`),
    async close() {
      await site.close();
      await storage.close();
    },
  };
}

/** Polls until `probe` returns something, or fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The token of a link, as a mail carries it. */
export function extractToken(link: string | undefined): string {
  const token = new URL(link ?? 'http://x/').searchParams.get('token');
  if (token === null) throw new Error(`no token in ${link}`);
  return token;
}

/** A storage whose subscriber store fails every call, as a database that is down would. */
export function withFailingSubscribers(storage: Storage): Storage {
  const fail = async () => {
    throw new Error('SQLITE_IOERR: disk I/O error at /var/lib/secret-path');
  };
  const subscribers: SubscriberStore = {
    signUp: fail,
    confirm: fail,
    unsubscribe: fail,
    findSubscriber: fail,
    findByUnsubscribeToken: fail,
    claimOutbox: fail,
    markOutboxDelivered: fail,
    markOutboxAttemptFailed: fail,
    outboxStats: fail,
    listOutbox: fail,
  };
  return {
    ...storage,
    subscribers,
    ping: storage.ping,
    close: storage.close,
  };
}
