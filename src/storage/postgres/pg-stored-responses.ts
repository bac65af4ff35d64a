import type { StoredResponse, StoredResponses } from '../ports.ts';
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import { toStoredResponse } from '../stored-response-row.ts';
import {
  DELETE_EXPIRED_RESPONSES,
  DELETE_OVER_COUNT,
  DELETE_STORED_RESPONSE,
  INSERT_STORED_RESPONSE,
  READ_STORED_RESPONSE,
  type StoredResponseRow,
} from '../stored-response-sql.ts';
import type { PgConnections } from './pg-connections.ts';

const INSERT = numberPlaceholders(INSERT_STORED_RESPONSE);
const READ = numberPlaceholders(READ_STORED_RESPONSE);
const DELETE = numberPlaceholders(DELETE_STORED_RESPONSE);
const DELETE_EXPIRED = numberPlaceholders(DELETE_EXPIRED_RESPONSES);
const OVER_COUNT = numberPlaceholders(DELETE_OVER_COUNT);

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
    await this.#pool.query({
      name: 'stored-responses-over-count',
      text: OVER_COUNT,
      values: [record.app, maxPerApp],
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
