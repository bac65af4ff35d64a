import type { SessionRevocations } from '../ports.ts';
import { DELETE_EXPIRED_REVOCATIONS, IS_SESSION_REVOKED, REVOKE_SESSION } from '../session-revocation-sql.ts';
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import type { PgConnections } from './pg-connections.ts';

const DELETE_EXPIRED = numberPlaceholders(DELETE_EXPIRED_REVOCATIONS);
const REVOKE = numberPlaceholders(REVOKE_SESSION);
const IS_REVOKED = numberPlaceholders(IS_SESSION_REVOKED);

/** Each statement on the pool's bounded default (pg-statement-timeout.ts): a lost server is a 503. */
export class PgSessionRevocations implements SessionRevocations {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async revoke(nonce: string, expiresAt: number, now: number): Promise<void> {
    await this.#pool.query({ name: 'session-revocations-expire', text: DELETE_EXPIRED, values: [now] });
    await this.#pool.query({ name: 'session-revoke', text: REVOKE, values: [nonce, expiresAt] });
  }

  async isRevoked(nonce: string): Promise<boolean> {
    const { rows } = await this.#pool.query({
      name: 'session-is-revoked',
      text: IS_REVOKED,
      values: [nonce],
    });
    return rows.length > 0;
  }
}
