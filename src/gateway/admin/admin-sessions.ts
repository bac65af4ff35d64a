import type { SessionRevocations } from '../../storage/ports.ts';
import type { AdminCredentials } from './admin-credentials.ts';

/**
 * The dashboard's sessions across instances: a cookie is a session when its signature and expiry
 * hold (AdminCredentials, checked first, with no database read) and the database has no sign-out
 * of it. Nothing is cached: a "not signed out" remembered here would let a session signed out on
 * another instance go on working. When the database cannot answer, its DependencyUnavailableError
 * propagates: the request is refused with a 503, not served on faith.
 */
export class AdminSessions {
  readonly #credentials: AdminCredentials;
  readonly #revocations: SessionRevocations;

  constructor(credentials: AdminCredentials, revocations: SessionRevocations) {
    this.#credentials = credentials;
    this.#revocations = revocations;
  }

  async isSignedIn(value: string, now: number): Promise<boolean> {
    const session = this.#credentials.readSession(value, now);
    return session !== undefined && !(await this.#revocations.isRevoked(session.nonce));
  }

  /**
   * Records the sign-out for every instance. Only a validly signed, unexpired session is written,
   * so only sign-outs of real sessions (which take the admin token to open) add rows.
   */
  async signOut(value: string, now: number): Promise<void> {
    const session = this.#credentials.readSession(value, now);
    if (session !== undefined) await this.#revocations.revoke(session.nonce, session.expiresAt, now);
  }
}
