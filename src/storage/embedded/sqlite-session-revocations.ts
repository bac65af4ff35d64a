import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SessionRevocations } from '../ports.ts';
import { DELETE_EXPIRED_REVOCATIONS, IS_SESSION_REVOKED, REVOKE_SESSION } from '../session-revocation-sql.ts';

export class SqliteSessionRevocations implements SessionRevocations {
  readonly #revoke: StatementSync;
  readonly #isRevoked: StatementSync;
  readonly #deleteExpired: StatementSync;

  constructor(db: DatabaseSync) {
    this.#revoke = db.prepare(REVOKE_SESSION);
    this.#isRevoked = db.prepare(IS_SESSION_REVOKED);
    this.#deleteExpired = db.prepare(DELETE_EXPIRED_REVOCATIONS);
  }

  async revoke(nonce: string, expiresAt: number, now: number): Promise<void> {
    this.#deleteExpired.run(now);
    this.#revoke.run(nonce, expiresAt);
  }

  async isRevoked(nonce: string): Promise<boolean> {
    return this.#isRevoked.get(nonce) !== undefined;
  }
}
