import { GoogleAuth } from 'google-auth-library';
import type { TokenFetch } from './google-token-source.ts';

/**
 * Tokens from Google's auth library (Application Default Credentials, or `keyFile`), which
 * fetches and refreshes them as it does for every Google client. A module of its own so that
 * google-token-source.ts imports it, and the library with gaxios and gcp-metadata, when a vertex
 * slot first needs such a token: the library is CommonJS, and in the bundle a package imported
 * with `import()` exposes only its default export, where this module's static import gets the
 * named ones.
 */
export function applicationDefaultFetch(scope: string, keyFile: string | undefined): TokenFetch {
  const auth = new GoogleAuth({ scopes: [scope], ...(keyFile === undefined ? {} : { keyFile }) });
  return async () => {
    const client = await auth.getClient();
    const answer = await client.getAccessToken();
    if (typeof answer.token !== 'string' || answer.token === '') throw new Error('no access token');
    const expiry = (client as { credentials?: { expiry_date?: number | null } }).credentials?.expiry_date;
    return { token: answer.token, expiresAt: typeof expiry === 'number' ? expiry : Date.now() + 300_000 };
  };
}
