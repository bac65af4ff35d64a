import type { Transporter } from 'nodemailer';
import type { MailMessage, MailTransport } from './mail-transport.ts';

export interface SmtpSettings {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; it holds a password, so it never reaches a log. */
  url: string;
  from: string;
}

/**
 * MAIL_TRANSPORT=smtp, through nodemailer. Timeouts are far below nodemailer's defaults (minutes):
 * mail is sent in the background, but a hung server must not hold shutdown. nodemailer (about
 * 20 MB of RSS) is loaded with the first mail, not at start-up.
 */
export class SmtpMailTransport implements MailTransport {
  readonly #settings: SmtpSettings;
  #transporter: Promise<Transporter> | undefined;

  constructor(settings: SmtpSettings) {
    this.#settings = settings;
  }

  #open(): Promise<Transporter> {
    this.#transporter ??= import('nodemailer').then((nodemailer) =>
      nodemailer.default.createTransport({
        url: this.#settings.url,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
        logger: false,
        debug: false,
      }),
    );
    return this.#transporter;
  }

  async send(message: MailMessage): Promise<void> {
    try {
      const transporter = await this.#open();
      await transporter.sendMail({
        from: this.#settings.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
      });
    } catch (error) {
      // nodemailer errors can quote the server's reply; only the code and the SMTP status go on.
      throw new Error(`SMTP delivery failed: ${describeSmtpError(error)}`);
    }
  }

  async close(): Promise<void> {
    const transporter = this.#transporter;
    this.#transporter = undefined;
    if (transporter !== undefined) (await transporter).close();
  }
}

function describeSmtpError(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [typeof code === 'string' ? code : 'error'];
  if (typeof responseCode === 'number') parts.push(`status ${responseCode}`);
  return parts.join(', ');
}
