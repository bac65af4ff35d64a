import { createHash } from 'node:crypto';

/**
 * The `prompt_cache_key` an OpenAI upstream gets (CONTRACT 5.2, 5.9): stable per app and session
 * (the run's session key: `x-session-id`, `x-claude-code-session-id`, `metadata.user_id`, a client's
 * own `prompt_cache_key`; else the app alone), so the upstream routes a session's requests to the
 * machine that holds its prefix. A hash, so neither the app's name nor a client's session id (which
 * may name a user) leaves the gateway, and two apps never share a key.
 */
export function promptCacheKeyFor(app: string, sessionKey: string | undefined): string {
  const digest = createHash('sha256')
    .update(app)
    .update('\u0000')
    .update(sessionKey ?? '')
    .digest('hex');
  return `gw-${digest.slice(0, 40)}`;
}
