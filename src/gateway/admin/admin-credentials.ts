import { createHash, createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../platform/constant-time.ts';

const SESSION_MS = 8 * 3_600_000;

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/**
 * The admin token and the dashboard's sessions. The token is compared as SHA-256 digests in
 * constant time, so neither its content nor its length leaks through timing. A session is a
 * signed value, `expiresAt.nonce.signature`, keyed by the token: any instance with the same
 * ADMIN_TOKEN accepts it, changing the token ends every session, and nothing is stored per
 * session until it is signed out (AdminSessions, which records the nonce where every instance
 * reads it).
 */
export class AdminCredentials {
  readonly #tokenDigest: string;
  readonly #key: Buffer;

  constructor(token: string) {
    this.#tokenDigest = digest(token);
    this.#key = createHmac('sha256', token).update('gateway dashboard session v1').digest();
  }

  matchesToken(candidate: string): boolean {
    return constantTimeEqual(digest(candidate), this.#tokenDigest);
  }

  /** A new session value and its lifetime in seconds (the cookie's Max-Age). */
  openSession(now: number): { value: string; maxAgeSeconds: number } {
    const body = `${now + SESSION_MS}.${randomBytes(16).toString('base64url')}`;
    return { value: `${body}.${this.#sign(body)}`, maxAgeSeconds: SESSION_MS / 1000 };
  }

  /**
   * The session a cookie value names, when it is signed with this token's key and not expired;
   * undefined otherwise. The signature is checked first, in constant time, so nothing else is
   * learned about a forged value, and nothing past this point ever sees one.
   */
  readSession(value: string, now: number): { nonce: string; expiresAt: number } | undefined {
    const parts = value.split('.');
    if (parts.length !== 3) return undefined;
    const [expires, nonce, signature] = parts as [string, string, string];
    if (!constantTimeEqual(this.#sign(`${expires}.${nonce}`), signature)) return undefined;
    const expiresAt = Number(expires);
    return Number.isSafeInteger(expiresAt) && expiresAt > now ? { nonce, expiresAt } : undefined;
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
