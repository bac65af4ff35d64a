import nodemailer, { type Transporter } from 'nodemailer';
import type { MailMessage, MailTransport } from './mail-transport.ts';

export interface SmtpSettings {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; it holds a password, so it never reaches a log. */
  url: string;
  from: string;
}

/**
 * MAIL_TRANSPORT=smtp, through nodemailer. Timeouts are far below nodemailer's defaults (minutes):
 * mail is sent in the background, but a hung server must not hold shutdown.
 */
export class SmtpMailTransport implements MailTransport {
  readonly #transporter: Transporter;
  readonly #from: string;

  constructor(settings: SmtpSettings) {
    this.#from = settings.from;
    this.#transporter = nodemailer.createTransport({
      url: settings.url,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
      logger: false,
      debug: false,
    });
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.#transporter.sendMail({
        from: this.#from,
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
    this.#transporter.close();
  }
}

function describeSmtpError(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [typeof code === 'string' ? code : 'error'];
  if (typeof responseCode === 'number') parts.push(`status ${responseCode}`);
  return parts.join(', ');
}
