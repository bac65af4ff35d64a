import type { GuardPhase } from '../../config/guardrail-settings.ts';
import { readBoundedBody } from '../../platform/read-bounded-body.ts';

export interface WebhookSettings {
  url: string;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  failureMode: 'open' | 'closed';
  maxResponseBytes: number;
}

/** What the gateway POSTs (CONTRACT 6.6). */
export interface WebhookRequest {
  phase: GuardPhase;
  app: string;
  team: string | null;
  model: string | null;
  texts: readonly string[];
}

/** The webhook's answer, checked; or why it could not be had (a timeout, a status, a body). */
export type WebhookAnswer =
  | { action: 'allow' }
  | { action: 'block' }
  | { action: 'mask'; replacements: string[] }
  | { action: 'failed'; reason: string };

/**
 * Asks a webhook guard about a request's texts: one POST, cut after `timeoutMs` (headers and
 * body together), its body read up to `maxResponseBytes` and no further. Anything but a 2xx with
 * `{action: "allow" | "block" | "mask"}` (and, for mask, one string per text in `replacements`)
 * is a failure whose reason names what was wrong, never what the body or the texts held; the
 * caller's `failureMode` decides what a failure does.
 */
export async function askWebhook(settings: WebhookSettings, request: WebhookRequest): Promise<WebhookAnswer> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let text: string;
  try {
    const response = await fetch(settings.url, {
      method: 'POST',
      headers: { ...settings.headers, 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal,
      redirect: 'error',
    });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      return { action: 'failed', reason: `answered status ${response.status}` };
    }
    const body = await readBoundedBody(response, settings.maxResponseBytes);
    if (body === undefined)
      return { action: 'failed', reason: `answered more than ${settings.maxResponseBytes} bytes` };
    text = body;
  } catch (error) {
    const timedOut = signal.aborted;
    return {
      action: 'failed',
      reason: timedOut
        ? `did not answer within ${settings.timeoutMs} ms`
        : `could not be reached (${errorName(error)})`,
    };
  }
  return readAnswer(text, request.texts.length);
}

function readAnswer(text: string, count: number): WebhookAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { action: 'failed', reason: 'answered a body that is not JSON' };
  }
  if (typeof value !== 'object' || value === null)
    return { action: 'failed', reason: 'answered no JSON object' };
  const { action, replacements } = value as { action?: unknown; replacements?: unknown };
  if (action === 'allow' || action === 'block') return { action };
  if (action !== 'mask') return { action: 'failed', reason: 'answered no action of allow, block or mask' };
  if (
    !Array.isArray(replacements) ||
    replacements.length !== count ||
    !replacements.every((item) => typeof item === 'string')
  )
    return {
      action: 'failed',
      reason: `answered mask without one string per text in replacements (${count})`,
    };
  return { action: 'mask', replacements };
}

function errorName(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.name : 'error';
}
