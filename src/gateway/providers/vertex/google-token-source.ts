import { readFile } from 'node:fs/promises';
import { isRecord } from '../json-guards.ts';

/** The scope Vertex AI's calls need. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** An access token and when it stops working (ms since the epoch). */
export interface AccessToken {
  token: string;
  expiresAt: number;
}

export type TokenFetch = () => Promise<AccessToken>;

/** Longest a token endpoint may take before the fetch fails. */
const TOKEN_TIMEOUT_MS = 15_000;
/** Lifetime asked for a signed assertion (Google's maximum is an hour). */
const ASSERTION_SECONDS = 3600;

/**
 * Where a vertex slot's tokens come from (CONTRACT 6.4, 6.9). A service-account key file is read
 * here and its assertion signed with `jose` (RS256) and posted to the file's own `token_uri`, which
 * Google's auth library does not honour (it always posts to oauth2.googleapis.com). Anything else
 * (Application Default Credentials: the metadata server, a user's or an external account's file)
 * is Google's auth library's, which fetches and refreshes as it does for every Google client.
 * Each library (Google's with gaxios and gcp-metadata, about 0.3 MB of source) is imported when a
 * vertex slot first needs a token of its kind, not at start-up (docs/performance.md, idle memory).
 */
export async function googleTokenFetch(credentialsFile: string | undefined): Promise<TokenFetch> {
  if (credentialsFile !== undefined) {
    const parsed: unknown = JSON.parse(await readFile(credentialsFile, 'utf8'));
    if (isRecord(parsed) && parsed['type'] === 'service_account') return serviceAccountFetch(parsed);
  }
  const { applicationDefaultFetch } = await import('./google-adc-fetch.ts');
  return applicationDefaultFetch(CLOUD_PLATFORM_SCOPE, credentialsFile);
}

async function serviceAccountFetch(key: Record<string, unknown>): Promise<TokenFetch> {
  const email = key['client_email'];
  const pem = key['private_key'];
  const tokenUri =
    typeof key['token_uri'] === 'string' ? key['token_uri'] : 'https://oauth2.googleapis.com/token';
  if (typeof email !== 'string' || typeof pem !== 'string')
    throw new Error('the service-account file has no client_email or private_key');
  const keyId = typeof key['private_key_id'] === 'string' ? key['private_key_id'] : undefined;
  const { importPKCS8, SignJWT } = await import('jose');
  const signingKey = importPKCS8(pem, 'RS256');
  return async () => {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(keyId === undefined ? {} : { kid: keyId }) })
      .setIssuer(email)
      .setAudience(tokenUri)
      .setIssuedAt(now)
      .setExpirationTime(now + ASSERTION_SECONDS)
      .sign(await signingKey);
    const response = await fetch(tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
    const text = await response.text();
    const body: unknown = text === '' ? undefined : safeParse(text);
    if (!response.ok) {
      const reason =
        isRecord(body) && typeof body['error'] === 'string' ? body['error'] : `HTTP ${response.status}`;
      throw new Error(`the token endpoint refused the assertion (${reason})`);
    }
    if (!isRecord(body) || typeof body['access_token'] !== 'string')
      throw new Error('the token endpoint answered no access_token');
    const seconds = typeof body['expires_in'] === 'number' ? body['expires_in'] : 3600;
    return { token: body['access_token'], expiresAt: Date.now() + seconds * 1000 };
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
