import type { ErrorEnvelope } from '../../../platform/errors.ts';

/** Seconds a client is told to wait after a rate limit whose wait the gateway does not know. */
const DEFAULT_RETRY_SECONDS = 1;

/**
 * A failure after the stream's first byte as the `error` of `response.failed`, with the codes
 * OpenAI uses and Codex reads: `rate_limit_exceeded` with "try again in N s" in the message
 * (Codex waits that long and retries instead of failing the turn), `context_length_exceeded`
 * (Codex stops retrying and says the conversation is too long), and `server_error` for the rest
 * (Codex retries). The gateway's own code stays in the message.
 */
export function toResponseFailure(envelope: ErrorEnvelope): { code: string; message: string } {
  const { code, message } = envelope.error;
  if (code === 'rate_limited' || statusOf(envelope.error.details) === 429) {
    const seconds = retrySeconds(envelope.error.details) ?? DEFAULT_RETRY_SECONDS;
    return {
      code: 'rate_limit_exceeded',
      message: `${message} Please try again in ${seconds}s.`,
    };
  }
  if (code === 'invalid_request' || code === 'upstream_error') {
    if (/context|too long|too many tokens|maximum.*tokens/i.test(message)) {
      return { code: 'context_length_exceeded', message };
    }
    if (code === 'invalid_request') return { code: 'invalid_prompt', message };
  }
  return { code: 'server_error', message: `${message} (${code})` };
}

function retrySeconds(details: unknown): number | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const value = (details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

function statusOf(details: unknown): unknown {
  return typeof details === 'object' && details !== null
    ? (details as { status?: unknown }).status
    : undefined;
}
