import { createHash } from 'node:crypto';
import { BoundedCache } from '../../../platform/bounded-cache.ts';

/**
 * Keys already hashed, by app and session: a session sends many requests, and an app without
 * sessions sends every request with the same key, so the SHA-256 (about 1.5% of a chat's CPU in
 * the profile) is paid once per session rather than per request. Bounded, as session ids come
 * from clients.
 */
const known = new BoundedCache<string, string>(4096);

/**
 * The `prompt_cache_key` an OpenAI upstream gets (CONTRACT 5.2, 5.9): stable per app and session
 * (the run's session key: `x-session-id`, `x-claude-code-session-id`, `metadata.user_id`, a client's
 * own `prompt_cache_key`; else the app alone), so the upstream routes a session's requests to the
 * machine that holds its prefix. A hash, so neither the app's name nor a client's session id (which
 * may name a user) leaves the gateway, and two apps never share a key.
 */
export function promptCacheKeyFor(app: string, sessionKey: string | undefined): string {
  const name = `${app}\u0000${sessionKey ?? ''}`;
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  const digest = createHash('sha256').update(name).digest('hex');
  const key = `gw-${digest.slice(0, 40)}`;
  known.set(name, key);
  return key;
}
