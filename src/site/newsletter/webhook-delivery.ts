import { createHmac } from 'node:crypto';
import type { NewsletterWebhookSettings } from '../../config/config-types.ts';
import type { SubscriberStatus } from '../../storage/ports.ts';

/** What the mailing-list upstream is told: the subscriber's state after a change. */
export interface SubscriptionEvent {
  email: string;
  status: SubscriberStatus;
  /** Epoch ms; sent as ISO-8601. */
  subscribedAt: number;
}

export const SIGNATURE_HEADER = 'x-newsletter-signature-256';
export const EVENT_ID_HEADER = 'x-newsletter-event-id';

export function toWebhookBody(event: SubscriptionEvent): string {
  return JSON.stringify({
    email: event.email,
    status: event.status,
    subscribedAt: new Date(event.subscribedAt).toISOString(),
  });
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, as GitHub signs its webhooks: easy to verify anywhere. */
export function signWebhookBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface DeliveryOptions {
  /** Stable per change, so the upstream can drop a repeat (an outbox retry after a lost answer). */
  eventId: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * POSTs one event. Any answer but 2xx is a failure (redirects are not followed: a moved endpoint
 * is a configuration error worth seeing). Error messages carry the status or the network error's
 * code, never the URL (it may hold credentials) or the upstream's body.
 */
export async function deliverWebhook(
  settings: NewsletterWebhookSettings,
  event: SubscriptionEvent,
  options: DeliveryOptions,
): Promise<void> {
  const body = toWebhookBody(event);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'newsletter-webhook/1',
    [EVENT_ID_HEADER]: options.eventId,
  };
  if (settings.secret !== undefined) headers[SIGNATURE_HEADER] = signWebhookBody(body, settings.secret);
  const { url, authorization } = splitCredentials(settings.url);
  if (authorization !== undefined) headers.authorization = authorization;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  let status: number;
  try {
    // undici rather than fetch: fetch refuses some ports outright and hides the error code. It is
    // loaded with the first delivery: a site without a webhook never holds its whole index.
    const { request } = await import('undici');
    const response = await request(url, { method: 'POST', headers, body, signal });
    status = response.statusCode;
    // The body is not needed, but it has to be consumed for the connection to be reused.
    await response.body.dump();
  } catch (error) {
    throw new WebhookError(describeRequestError(error, timeout));
  }
  if (status < 200 || status > 299) throw new WebhookError(`HTTP ${status}`);
}

export class WebhookError extends Error {
  constructor(message: string) {
    super(`mailing-list webhook failed: ${message}`);
    this.name = 'WebhookError';
  }
}

/** `https://user:pass@host/…` means HTTP Basic auth, which undici would otherwise drop silently. */
function splitCredentials(raw: string): { url: string; authorization: string | undefined } {
  const url = new URL(raw);
  if (url.username === '' && url.password === '') return { url: raw, authorization: undefined };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

function describeRequestError(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'timeout';
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === 'string') return code;
  if (name === 'AbortError') return 'aborted';
  return 'network error';
}
