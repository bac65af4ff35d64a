import type { Logger } from '../../platform/logger.ts';
import type { MailMessage, MailTransport } from './mail-transport.ts';

/**
 * MAIL_TRANSPORT=log: nothing is sent; the recipient, subject and links are written to the log at
 * info, so double opt-in can be walked through locally by copying a link. Those one-time links
 * are the point of this transport; nothing else of the mail (and no secret) is logged.
 */
export class LogMailTransport implements MailTransport {
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  async send(message: MailMessage): Promise<void> {
    this.#logger.info(
      { mail: { to: message.to, subject: message.subject, links: message.links } },
      'mail not sent (MAIL_TRANSPORT=log)',
    );
  }
}
