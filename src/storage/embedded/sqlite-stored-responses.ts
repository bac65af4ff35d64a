import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StoredResponse, StoredResponses } from '../ports.ts';
import { toStoredResponse } from '../stored-response-row.ts';
import {
  DELETE_EXPIRED_RESPONSES,
  DELETE_OVER_COUNT,
  DELETE_STORED_RESPONSE,
  INSERT_STORED_RESPONSE,
  READ_STORED_RESPONSE,
  type StoredResponseRow,
} from '../stored-response-sql.ts';

export class SqliteStoredResponses implements StoredResponses {
  readonly #insert: StatementSync;
  readonly #read: StatementSync;
  readonly #delete: StatementSync;
  readonly #deleteExpired: StatementSync;
  readonly #deleteOverCount: StatementSync;

  constructor(db: DatabaseSync) {
    this.#insert = db.prepare(INSERT_STORED_RESPONSE);
    this.#read = db.prepare(READ_STORED_RESPONSE);
    this.#delete = db.prepare(DELETE_STORED_RESPONSE);
    this.#deleteExpired = db.prepare(DELETE_EXPIRED_RESPONSES);
    this.#deleteOverCount = db.prepare(DELETE_OVER_COUNT);
  }

  async put(record: StoredResponse, maxPerApp: number, now: number): Promise<void> {
    this.#deleteExpired.run(now);
    const bytes = Buffer.byteLength(record.response) + Buffer.byteLength(record.inputItems);
    this.#insert.run(
      record.app,
      record.id,
      record.createdAt,
      record.expiresAt,
      bytes,
      record.response,
      record.inputItems,
    );
    this.#deleteOverCount.run(record.app, maxPerApp);
  }

  async get(app: string, id: string, now: number): Promise<StoredResponse | undefined> {
    const row = this.#read.get(app, id, now) as StoredResponseRow | undefined;
    return row === undefined ? undefined : toStoredResponse(row);
  }

  async delete(app: string, id: string): Promise<boolean> {
    return Number(this.#delete.run(app, id).changes) > 0;
  }
}
