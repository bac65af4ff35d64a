import type { Clock } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type {
  ConfirmOutcome,
  SubscriberRecord,
  SubscriberStatus,
  SubscriberStore,
  UnsubscribeOutcome,
} from '../../storage/ports.ts';
import { deriveSubscribedAt } from '../../storage/subscriber-transitions.ts';
import { hashClientAddress, trimUserAgent } from './client-identity.ts';
import { buildConfirmationMail } from './confirmation-mail.ts';
import type { MailDispatcher } from './mail-dispatcher.ts';
import { hashToken, issueToken, isTokenShaped } from './newsletter-tokens.ts';
import type { SubscriptionEvent } from './webhook-delivery.ts';

export interface NewsletterServiceDeps {
  store: SubscriberStore;
  clock: Clock;
  logger: Logger;
  /** Present when a mail transport is configured: double opt-in. Absent: single opt-in. */
  mail: MailDispatcher | undefined;
  /** The mailing-list upstream, when configured. */
  upstream:
    | { mode: 'sync'; notify: (event: SubscriptionEvent) => Promise<void> }
    | { mode: 'async'; wake: () => void }
    | undefined;
  /** PUBLIC_SITE_URL: the base of the links in mails. */
  siteUrl: string;
  ipHashKey: string;
  confirmValidDays: number;
  /** One confirmation mail per address per this interval, whoever asks. */
  resendAfterMs: number;
}

export interface SignupInput {
  /** Already validated and normalised. */
  email: string;
  source: string;
  ip: string;
  userAgent: string | string[] | undefined;
}

const DAY_MS = 86_400_000;

/**
 * The newsletter's use cases. A signup answers the same for every valid address, known or not:
 * `pending` when double opt-in is on, `subscribed` when it is off. Whether a mail goes out, or the
 * address was already subscribed, never shows in the answer.
 */
export class NewsletterService {
  readonly #deps: NewsletterServiceDeps;

  constructor(deps: NewsletterServiceDeps) {
    this.#deps = deps;
  }

  get doubleOptIn(): boolean {
    return this.#deps.mail !== undefined;
  }

  async subscribe(input: SignupInput): Promise<'pending' | 'subscribed'> {
    const { store, clock, mail, upstream } = this.#deps;
    const at = clock.now();
    const confirm = issueToken();
    const unsubscribe = issueToken();
    const result = await this.#useStore(() =>
      store.signUp({
        email: input.email,
        consent: {
          at,
          source: input.source,
          ipHash: hashClientAddress(input.ip, this.#deps.ipHashKey),
          userAgent: trimUserAgent(input.userAgent),
        },
        doubleOptIn: mail !== undefined,
        confirmTokenHash: confirm.hash,
        confirmExpiresAt: at + this.#deps.confirmValidDays * DAY_MS,
        resendAfterMs: this.#deps.resendAfterMs,
        unsubscribeTokenHash: unsubscribe.hash,
        enqueue: upstream?.mode === 'async',
      }),
    );
    this.#deps.logger.info(
      { subscriber: result.subscriber.id, outcome: result.outcome },
      'newsletter signup',
    );
    if (mail !== undefined && result.confirmationDue) {
      mail.dispatch(
        buildConfirmationMail({
          to: result.subscriber.email,
          siteUrl: this.#deps.siteUrl,
          confirmToken: confirm.token,
          unsubscribeToken: unsubscribe.token,
          confirmValidDays: this.#deps.confirmValidDays,
        }),
      );
    }
    // Sync mode tells the upstream on every signup, changed or not: were it told only of changes,
    // a failing upstream would answer 500 for new addresses and 200 for known ones.
    await this.#afterChange(result.subscriber, result.enqueued);
    return mail === undefined ? 'subscribed' : 'pending';
  }

  async confirm(token: unknown): Promise<ConfirmOutcome> {
    if (!isTokenShaped(token)) return 'invalid';
    const { store, clock, upstream } = this.#deps;
    const result = await this.#useStore(() =>
      store.confirm(hashToken(token), clock.now(), upstream?.mode === 'async'),
    );
    if (result.outcome === 'confirmed' || result.outcome === 'already_confirmed') {
      await this.#afterChange(result.subscriber, result.enqueued);
    }
    return result.outcome;
  }

  /** The status behind an unsubscribe token, for the page that asks "unsubscribe?"; undefined if unknown. */
  async lookUpUnsubscribe(token: unknown): Promise<SubscriberStatus | undefined> {
    if (!isTokenShaped(token)) return undefined;
    const subscriber = await this.#useStore(() => this.#deps.store.findByUnsubscribeToken(hashToken(token)));
    return subscriber?.status;
  }

  async unsubscribe(token: unknown): Promise<UnsubscribeOutcome> {
    if (!isTokenShaped(token)) return 'invalid';
    const { store, clock, upstream } = this.#deps;
    const result = await this.#useStore(() =>
      store.unsubscribe(hashToken(token), clock.now(), upstream?.mode === 'async'),
    );
    if (result.outcome !== 'invalid') await this.#afterChange(result.subscriber, result.enqueued);
    return result.outcome;
  }

  async #afterChange(subscriber: SubscriberRecord | undefined, enqueued: boolean): Promise<void> {
    const upstream = this.#deps.upstream;
    if (upstream === undefined || subscriber === undefined) return;
    if (upstream.mode === 'async') {
      if (enqueued) upstream.wake();
      return;
    }
    const event = {
      email: subscriber.email,
      status: subscriber.status,
      subscribedAt: deriveSubscribedAt(subscriber),
    };
    try {
      await upstream.notify(event);
    } catch (error) {
      // The subscriber row is already saved; repeating the request tells the upstream again.
      this.#deps.logger.error({ err: error, subscriber: subscriber.id }, 'mailing-list upstream failed');
      throw new ApiError(
        'upstream_failure',
        'the mailing list could not be updated; please try again later',
        {
          cause: error,
        },
      );
    }
  }

  async #useStore<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'subscriber store failed');
      throw new ApiError('upstream_failure', 'the subscription could not be saved; please try again later', {
        cause: error,
      });
    }
  }
}
