/**
 * The statements of the SessionRevocations port (migration 006), the same for both engines, with
 * `?` placeholders (PostgreSQL numbers them).
 */

/** Idempotent: a second sign-out of the same session, from any instance, changes nothing. */
export const REVOKE_SESSION =
  'INSERT INTO admin_session_revocations (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING';

export const IS_SESSION_REVOKED = 'SELECT 1 AS revoked FROM admin_session_revocations WHERE nonce = ?';

/**
 * Most revocations of expired sessions one sign-out deletes. Each sign-out adds one row and takes
 * up to this many away, so a backlog (after a burst) drains while no single write grows with it.
 */
export const EXPIRED_PER_WRITE = 100;

/** Revocations no longer needed: their session would be refused as expired anyway. */
export const DELETE_EXPIRED_REVOCATIONS = `DELETE FROM admin_session_revocations WHERE nonce IN (SELECT nonce FROM admin_session_revocations WHERE expires_at <= ? LIMIT ${EXPIRED_PER_WRITE})`;
