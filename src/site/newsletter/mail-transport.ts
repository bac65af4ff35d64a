/** One outgoing mail. Every value here is built by the service, never taken from a request as is. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058). */
  headers: Record<string, string>;
  /** The links the mail carries, by name: what the log transport writes out for local use. */
  links: Record<string, string>;
}

/** Where mail goes: SMTP in production, the log for local use, a capturing double in tests. */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}
