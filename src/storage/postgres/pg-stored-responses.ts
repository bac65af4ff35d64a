import type { StoredResponse, StoredResponses } from '../ports.ts';
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import { toStoredResponse } from '../stored-response-row.ts';
import {
  DELETE_OVER_COUNT,
  DELETE_STORED_RESPONSE,
  EXPIRED_PER_WRITE,
  INSERT_STORED_RESPONSE,
  READ_STORED_RESPONSE,
  type StoredResponseRow,
} from '../stored-response-sql.ts';
import type { PgConnections } from './pg-connections.ts';
import { inTransaction } from './pg-transaction.ts';

const INSERT = numberPlaceholders(INSERT_STORED_RESPONSE);
const READ = numberPlaceholders(READ_STORED_RESPONSE);
const DELETE = numberPlaceholders(DELETE_STORED_RESPONSE);
/**
 * The expiry sweep of stored-response-sql.ts, with the rows it picks locked as they are picked and
 * the rows another sweep holds skipped (`FOR UPDATE SKIP LOCKED`: it never waits on a row, so it
 * is never part of a deadlock; a row skipped is one another sweep is deleting).
 */
const DELETE_EXPIRED = `DELETE FROM stored_responses WHERE (app, id) IN (SELECT app, id FROM stored_responses WHERE expires_at <= $1 LIMIT ${EXPIRED_PER_WRITE} FOR UPDATE SKIP LOCKED)`;
const OVER_COUNT = numberPlaceholders(DELETE_OVER_COUNT);
/**
 * One app's count sweeps, one at a time (a lock for the transaction, keyed by the app): two puts
 * of one app sweep at once, and their DELETEs, locking overlapping rows in different orders,
 * deadlocked (PostgreSQL 40P01, one run in about fifteen of the contract's 40 simultaneous puts).
 * Skipping locked rows instead is wrong here: the sweep's OFFSET would then count past the newest
 * rows another sweep holds, and delete rows that should be kept. The first key names this lock
 * among the project's advisory locks (pg-migrate.ts has its own).
 */
const SWEEP_LOCK = 'SELECT pg_advisory_xact_lock(7262912, hashtext($1))';

/** Each statement on the pool's bounded default (pg-statement-timeout.ts): a lost server is a 503. */
export class PgStoredResponses implements StoredResponses {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async put(record: StoredResponse, maxPerApp: number, now: number): Promise<void> {
    await this.#pool.query({ name: 'stored-responses-expire', text: DELETE_EXPIRED, values: [now] });
    const bytes = Buffer.byteLength(record.response) + Buffer.byteLength(record.inputItems);
    await this.#pool.query({
      name: 'stored-responses-insert',
      text: INSERT,
      values: [
        record.app,
        record.id,
        record.createdAt,
        record.expiresAt,
        bytes,
        record.response,
        record.inputItems,
      ],
    });
    await inTransaction(this.#pool, async (client) => {
      await client.query({ name: 'stored-responses-sweep-lock', text: SWEEP_LOCK, values: [record.app] });
      await client.query({
        name: 'stored-responses-over-count',
        text: OVER_COUNT,
        values: [record.app, maxPerApp],
      });
    });
  }

  async get(app: string, id: string, now: number): Promise<StoredResponse | undefined> {
    const { rows } = await this.#pool.query({
      name: 'stored-responses-read',
      text: READ,
      values: [app, id, now],
    });
    const row = rows[0] as StoredResponseRow | undefined;
    return row === undefined ? undefined : toStoredResponse(row);
  }

  async delete(app: string, id: string): Promise<boolean> {
    const result = await this.#pool.query({
      name: 'stored-responses-delete',
      text: DELETE,
      values: [app, id],
    });
    return (result.rowCount ?? 0) > 0;
  }
}
