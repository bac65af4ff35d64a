import type { AzureIdentity } from '../../../config/cloud-settings.ts';
import type { BearerToken } from '../cached-bearer-auth.ts';
import { isRecord } from '../json-guards.ts';

/** The scope Azure OpenAI's tokens are asked for. */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';
const TOKEN_TIMEOUT_MS = 15_000;

/**
 * One Microsoft Entra ID token by the OAuth 2.0 client credentials grant
 * (`POST <authorityHost>/<tenantId>/oauth2/v2.0/token`), as Microsoft's identity platform documents
 * it: the app registration's client id and secret, the Cognitive Services scope. The secret goes
 * in the form body only; a refusal is reported by its `error` code, never its description (which
 * may quote the request).
 */
export async function fetchEntraToken(identity: AzureIdentity): Promise<BearerToken> {
  const host = (identity.authorityHost ?? DEFAULT_AUTHORITY_HOST).replace(/\/+$/, '');
  const url = `${host}/${encodeURIComponent(identity.tenantId)}/oauth2/v2.0/token`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: identity.clientId,
      client_secret: identity.clientSecret ?? '',
      scope: COGNITIVE_SERVICES_SCOPE,
    }),
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
  });
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const code =
      isRecord(body) && typeof body['error'] === 'string' ? body['error'] : `HTTP ${response.status}`;
    throw new Error(`Entra ID refused the client credentials (${code.slice(0, 64)})`);
  }
  if (!isRecord(body) || typeof body['access_token'] !== 'string')
    throw new Error('Entra ID answered no access_token');
  const seconds = Number(body['expires_in'] ?? 3600);
  return {
    token: body['access_token'],
    expiresAt: Date.now() + (Number.isFinite(seconds) ? seconds : 3600) * 1000,
  };
}

export type BearerTokenFetch = () => Promise<BearerToken>;

/** The token fetch of one Entra ID app registration. */
export function fetchEntraTokenFor(identity: AzureIdentity): BearerTokenFetch {
  return () => fetchEntraToken(identity);
}
