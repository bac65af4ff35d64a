import { createHash, randomBytes } from 'node:crypto';

/**
 * Confirm and unsubscribe tokens: 32 random bytes, base64url (43 characters). Only their SHA-256
 * is stored and tokens are looked up by that hash, so a leaked database holds no usable link and
 * no token is ever compared character by character. A plain hash is enough (no salt, no slow
 * hash): the token has 256 bits of entropy, so there is nothing to guess.
 */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedToken {
  /** Goes into the link, and nowhere else. */
  token: string;
  /** Goes into the database. */
  hash: string;
}

export function issueToken(): IssuedToken {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Whether a value could be a token at all; anything else is refused without a database lookup. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_SHAPE.test(value);
}
