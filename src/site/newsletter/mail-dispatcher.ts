import type { Logger } from '../../platform/logger.ts';
import { maskEmailAddress } from './email-address.ts';
import type { MailMessage, MailTransport } from './mail-transport.ts';

export interface MailDispatcherOptions {
  /** Sends of one mail, the first included. */
  attempts: number;
  /** Wait before the second attempt; doubled before each further one. */
  retryDelayMs: number;
}

const DEFAULTS: MailDispatcherOptions = { attempts: 3, retryDelayMs: 2_000 };

/**
 * Sends mail after the response, not in it. A signup's answer must not depend on whether a mail
 * went out: that would make the answer (or its timing) tell a known address from an unknown one,
 * and a slow mail server would hold the form. A mail that still fails after its retries is logged
 * (masked address); signing up again sends a new one. close() waits for the mails under way.
 */
export class MailDispatcher {
  readonly #transport: MailTransport;
  readonly #logger: Logger;
  readonly #options: MailDispatcherOptions;
  readonly #inFlight = new Set<Promise<void>>();
  /** Ends the retry waits early when closing. */
  readonly #waits = new Set<() => void>();
  #closing = false;

  constructor(transport: MailTransport, logger: Logger, options: Partial<MailDispatcherOptions> = {}) {
    this.#transport = transport;
    this.#logger = logger;
    this.#options = { ...DEFAULTS, ...options };
  }

  dispatch(message: MailMessage): void {
    const sending = this.#sendWithRetries(message).finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }

  /** Resolves once every mail dispatched so far has been sent or given up on. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** No more retry waits: mails under way get their current attempt, then the transport closes. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const wake of this.#waits) wake();
    await this.idle();
    await this.#transport.close?.();
  }

  async #sendWithRetries(message: MailMessage): Promise<void> {
    let delay = this.#options.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#transport.send(message);
        return;
      } catch (error) {
        const last = attempt >= this.#options.attempts || this.#closing;
        this.#logger[last ? 'error' : 'warn'](
          { err: error, to: maskEmailAddress(message.to), attempt },
          last ? 'mail could not be sent; giving up' : 'mail could not be sent; retrying',
        );
        if (last) return;
      }
      await this.#wait(delay);
      delay *= 2;
    }
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waits.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waits.add(wake);
    });
  }
}
