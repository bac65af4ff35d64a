/** What a door reads from its body that may name a session; headers are read by every door. */
export interface SessionFields {
  /** Anthropic's `metadata.user_id` (the Anthropic door). */
  userId?: unknown;
  /** OpenAI's `prompt_cache_key` (the OpenAI doors). */
  promptCacheKey?: unknown;
  /** OpenAI's `safety_identifier`, else its `user` (the OpenAI doors): the end user, never a session. */
  endUser?: unknown;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Longer keys are cut: the key is only hashed, and a stranger's header must not cost more. */
export const MAX_SESSION_KEY_CHARS = 512;

/**
 * The session a request belongs to (CONTRACT 5.6 and 5.9), which keeps it on one deployment of
 * its slot so the upstream's prompt cache keeps hitting: `x-session-id`, else Claude Code's
 * `x-claude-code-session-id`, else Anthropic's `metadata.user_id`, else OpenAI's
 * `prompt_cache_key`; undefined when none is a non-empty string. The key is never stored or
 * logged: it is only hashed to pick a deployment.
 */
export function readSessionKey(headers: Headers, fields: SessionFields = {}): string | undefined {
  return (
    usable(headers['x-session-id']) ??
    usable(headers['x-claude-code-session-id']) ??
    usable(fields.userId) ??
    usable(fields.promptCacheKey)
  );
}

function usable(value: unknown): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text === '') return undefined;
  return text.length > MAX_SESSION_KEY_CHARS ? text.slice(0, MAX_SESSION_KEY_CHARS) : text;
}

/** Longer end users are kept as their hash (CONTRACT 6.5). */
export const MAX_END_USER_CHARS = 128;

/**
 * The person behind a request (CONTRACT 6.5): the `x-gateway-end-user` header, else Anthropic's
 * `metadata.user_id`, else OpenAI's `safety_identifier` or `user`; undefined when none is a
 * non-empty string. A value past 128 characters becomes `sha256:` and its hash (`hashLong`, given
 * by the caller: the domain does no I/O and holds no crypto), so the ledger stays bounded.
 */
export function readEndUser(
  headers: Headers,
  fields: SessionFields,
  hashLong: (value: string) => string,
): string | undefined {
  const value = text(headers['x-gateway-end-user']) ?? text(fields.userId) ?? text(fields.endUser);
  if (value === undefined) return undefined;
  return value.length > MAX_END_USER_CHARS ? `sha256:${hashLong(value)}` : value;
}

function text(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}
