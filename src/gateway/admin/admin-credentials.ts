import { createHash, createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../../platform/constant-time.ts';

const SESSION_MS = 8 * 3_600_000;
/** Signed-out sessions remembered until they would have expired anyway; bounded. */
const MAX_REVOKED = 10_000;

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/**
 * The admin token and the dashboard's sessions. The token is compared as SHA-256 digests in
 * constant time, so neither its content nor its length leaks through timing. A session is a
 * signed value, `expiresAt.nonce.signature`, keyed by the token: any instance with the same
 * ADMIN_TOKEN accepts it, changing the token ends every session, and nothing is stored per
 * session. Signing out forgets the cookie in the browser and revokes the nonce in this process.
 */
export class AdminCredentials {
  readonly #tokenDigest: string;
  readonly #key: Buffer;
  readonly #revoked = new Map<string, number>();

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

  isValidSession(value: string, now: number): boolean {
    const parts = value.split('.');
    if (parts.length !== 3) return false;
    const [expires, nonce, signature] = parts as [string, string, string];
    if (!constantTimeEqual(this.#sign(`${expires}.${nonce}`), signature)) return false;
    const expiresAt = Number(expires);
    return Number.isSafeInteger(expiresAt) && expiresAt > now && !this.#revoked.has(nonce);
  }

  closeSession(value: string, now: number): void {
    if (!this.isValidSession(value, now)) return;
    const [expires, nonce] = value.split('.') as [string, string];
    for (const [old, until] of this.#revoked) if (until <= now) this.#revoked.delete(old);
    if (this.#revoked.size >= MAX_REVOKED) {
      const oldest = this.#revoked.keys().next().value;
      if (oldest !== undefined) this.#revoked.delete(oldest);
    }
    this.#revoked.set(nonce, Number(expires));
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
