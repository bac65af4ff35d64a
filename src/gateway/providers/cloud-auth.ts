import type { ProviderSlot } from '../../config/config-types.ts';
import { ProviderError } from './provider-error.ts';
import { redactSecrets } from './upstream-message.ts';

/** A request as a cloud's identity sees it before it is sent: what SigV4 signs. */
export interface SignableRequest {
  method: 'POST' | 'GET';
  /** The full URL as sent (path already percent-encoded). */
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * How a cloud kind proves who it is on one request (CONTRACT 6.4): the AWS SDK's SigV4 over the
 * request, a bearer token from Google's auth library or Entra ID, or a static key. Answers the
 * headers to add; rejects with a `credentials` ProviderError when the source fails.
 */
export interface UpstreamAuth {
  headers(request: SignableRequest): Promise<Record<string, string>>;
}

/** Longest sentence of a credential source's failure kept in the error. */
const MAX_REASON_CHARS = 300;

/**
 * A credential source's failure as the ProviderError the gateway answers 502 with (naming the
 * slot, the deployment and this reason). The library's message is kept short and redacted.
 */
export function credentialsFailure(slot: ProviderSlot, source: string, error: unknown): ProviderError {
  const message = error instanceof Error ? error.message : String(error);
  const reason = redactSecrets(message.split('\n')[0] ?? '', []).slice(0, MAX_REASON_CHARS);
  return new ProviderError({
    slot,
    failure: 'credentials',
    detail: `${source}: ${reason === '' ? 'failed' : reason}`,
    cause: error,
  });
}

/** Runs a credential source, turning its failure into a `credentials` ProviderError. */
export async function fromCredentialSource<T>(
  slot: ProviderSlot,
  source: string,
  fetch: () => Promise<T>,
): Promise<T> {
  try {
    return await fetch();
  } catch (error) {
    throw credentialsFailure(slot, source, error);
  }
}
