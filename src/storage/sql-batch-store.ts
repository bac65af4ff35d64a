import { randomUUID } from 'node:crypto';
import {
  BATCHES_TO_CLOSE,
  batchValues,
  CANCEL_BATCH,
  CANCEL_PENDING,
  CLOSE_BATCH,
  COMPLETE_ITEM,
  COMPLETE_ITEM_RECORDED,
  COUNT_ITEMS,
  closeTimes,
  DEFER_ITEM,
  DELETE_BATCH,
  DELETE_CHUNKS,
  DELETE_FILE,
  DELETE_FILE_BY_ID,
  DELETE_ITEMS,
  END_UNRUN,
  EXPIRED_BATCHES,
  EXPIRED_FILES,
  FAIL_BATCH,
  FIND_FILE,
  FINISH_FILE,
  fileValues,
  GET_BATCH,
  INSERT_BATCH,
  INSERT_CHUNK,
  INSERT_FILE,
  ITEM_COLUMNS,
  ITEM_HELD,
  ITEMS_PER_INSERT,
  itemValues,
  LIST_BATCHES,
  LIST_BATCHES_AFTER,
  listFilesSql,
  READ_CHUNKS,
  READ_RESULTS,
  RENEW_LEASES,
  START_BATCH,
  toBatch,
  toClaimed,
  toCounts,
  toFile,
  toResult,
} from './batch-sql.ts';
import type {
  BatchClose,
  BatchFileRecord,
  BatchFlavor,
  BatchRecord,
  BatchResultRow,
  BatchStore,
  ClaimedItem,
  CompleteOutcome,
  FilePage,
  ItemResult,
  NewBatch,
  NewBatchItem,
} from './batch-store.ts';
import { all, run, type SqlExecutor, type SqlRow } from './sql-executor.ts';
import { SqlUpstreamBatchStore } from './sql-upstream-batch-store.ts';

/**
 * How an engine claims items: the one place the two engines' batch SQL differs. Both statements
 * take (owner, token, lease until, now, now, limit) and return the claimed items' columns.
 */
export interface BatchClaim {
  sql: string;
  /** Whether the statement's rows already carry their batch's app, flavor and endpoint. */
  returnsBatchFields: boolean;
}

/**
 * SQLite has one writer at a time, so this one UPDATE … RETURNING can never hand an item to two
 * instances sharing the file. Its RETURNING may only name the updated table, so the batch's
 * fields are read afterwards (they never change once the batch exists).
 */
export const SQLITE_CLAIM: BatchClaim = {
  sql: `UPDATE batch_items SET state = 'running', lease_owner = ?, lease_token = ?, lease_until = ?, tries = tries + 1
       WHERE rowid IN (SELECT i.rowid FROM batch_items i JOIN batches b ON b.id = i.batch_id
         WHERE b.status = 'in_progress' AND b.upstream_slot IS NULL
           AND ((i.state = 'pending' AND i.not_before <= ?) OR (i.state = 'running' AND i.lease_until < ?))
         ORDER BY b.created_at, i.batch_id, i.line LIMIT ?)
       RETURNING batch_id, line, custom_id, ledger_id, body, lease_token, tries`,
  returnsBatchFields: false,
};

/**
 * PostgreSQL has concurrent writers: items are claimed with FOR UPDATE SKIP LOCKED, so instances
 * claiming at once each lock different rows, and a row is re-checked once locked, so no item is
 * handed out twice.
 */
export const POSTGRES_CLAIM: BatchClaim = {
  sql: `UPDATE batch_items i SET state = 'running', lease_owner = ?, lease_token = ?, lease_until = ?,
    tries = i.tries + 1
  FROM (SELECT p.batch_id, p.line FROM batch_items p JOIN batches b ON b.id = p.batch_id
    WHERE b.status = 'in_progress' AND b.upstream_slot IS NULL
      AND ((p.state = 'pending' AND p.not_before <= ?) OR (p.state = 'running' AND p.lease_until < ?))
    ORDER BY b.created_at, p.batch_id, p.line LIMIT ? FOR UPDATE OF p SKIP LOCKED) pick, batches b
  WHERE i.batch_id = pick.batch_id AND i.line = pick.line AND b.id = i.batch_id
  RETURNING i.batch_id, i.line, i.custom_id, i.ledger_id, i.body, i.lease_token, i.tries, b.app, b.flavor, b.endpoint`,
  returnsBatchFields: true,
};

/**
 * The BatchStore on either engine. A multi-statement change runs in one executor transaction
 * (BEGIN IMMEDIATE on SQLite, its own connection on PostgreSQL); only the claim differs by engine.
 */
export class SqlBatchStore implements BatchStore {
  readonly #sql: SqlExecutor;
  readonly #claim: BatchClaim;
  readonly upstream: SqlUpstreamBatchStore;

  constructor(sql: SqlExecutor, claim: BatchClaim) {
    this.#sql = sql;
    this.#claim = claim;
    this.upstream = new SqlUpstreamBatchStore(sql);
  }

  async createFile(file: BatchFileRecord): Promise<void> {
    await this.#sql.run(INSERT_FILE, fileValues(file));
  }

  async appendChunk(fileId: string, seq: number, data: Uint8Array): Promise<void> {
    // A Buffer over the same bytes: the pg driver sends a Buffer as bytea; SQLite takes any Uint8Array.
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await this.#sql.run(INSERT_CHUNK, [fileId, seq, bytes]);
  }

  async finishFile(fileId: string, bytes: number, lines: number): Promise<void> {
    await this.#sql.run(FINISH_FILE, [bytes, lines, fileId]);
  }

  async findFile(app: string, id: string, now: number): Promise<BatchFileRecord | undefined> {
    const row = (await this.#sql.all(FIND_FILE, [app, id, now]))[0];
    return row === undefined ? undefined : toFile(row);
  }

  async listFiles(app: string, now: number, page: FilePage): Promise<BatchFileRecord[]> {
    const sql = listFilesSql(page.order, page.purpose !== undefined, page.after !== undefined);
    const values: unknown[] = [app, now];
    if (page.purpose !== undefined) values.push(page.purpose);
    if (page.after !== undefined) values.push(app, page.after);
    return (await this.#sql.all(sql, [...values, page.limit])).map(toFile);
  }

  async readChunks(fileId: string, fromSeq: number, limit: number): Promise<Uint8Array[]> {
    return (await this.#sql.all(READ_CHUNKS, [fileId, fromSeq, limit])).map((row) => row.data as Uint8Array);
  }

  async deleteFile(app: string, id: string): Promise<boolean> {
    return this.#sql.transaction(function* () {
      const gone = (yield run(DELETE_FILE, [app, id])) > 0;
      if (gone) yield run(DELETE_CHUNKS, [id]);
      return gone;
    });
  }

  async createBatch(batch: NewBatch): Promise<void> {
    await this.#sql.run(INSERT_BATCH, batchValues(batch));
  }

  async addItems(batchId: string, items: readonly NewBatchItem[]): Promise<void> {
    await this.#sql.transaction(function* () {
      for (let at = 0; at < items.length; at += ITEMS_PER_INSERT) {
        const chunk = items.slice(at, at + ITEMS_PER_INSERT);
        const rows = chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
        const values = chunk.flatMap((item) => itemValues(batchId, item));
        yield run(`INSERT INTO batch_items ${ITEM_COLUMNS} VALUES ${rows}`, values);
      }
    });
  }

  async startBatch(batchId: string, now: number): Promise<void> {
    await this.#sql.run(START_BATCH, [now, batchId]);
  }

  async failBatch(batchId: string, errors: string, now: number): Promise<void> {
    await this.#sql.transaction(function* () {
      yield run(FAIL_BATCH, [now, errors, batchId]);
      yield run(DELETE_ITEMS, [batchId]);
    });
  }

  async #withCounts(row: SqlRow): Promise<BatchRecord> {
    return toBatch(row, toCounts(await this.#sql.all(COUNT_ITEMS, [String(row.id)])));
  }

  async getBatch(app: string, id: string): Promise<BatchRecord | undefined> {
    const row = (await this.#sql.all(GET_BATCH, [app, id]))[0];
    return row === undefined ? undefined : this.#withCounts(row);
  }

  async listBatches(app: string, flavor: BatchFlavor, limit: number, after?: string): Promise<BatchRecord[]> {
    const rows =
      after === undefined
        ? await this.#sql.all(LIST_BATCHES, [app, flavor, limit])
        : await this.#sql.all(LIST_BATCHES_AFTER, [app, flavor, app, after, limit]);
    return Promise.all(rows.map((row) => this.#withCounts(row)));
  }

  async cancelBatch(app: string, id: string, now: number): Promise<BatchRecord | undefined> {
    await this.#sql.transaction(function* () {
      if ((yield run(CANCEL_BATCH, [now, app, id])) > 0) yield run(CANCEL_PENDING, [now, id, id]);
    });
    return this.getBatch(app, id);
  }

  async claimItems(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedItem[]> {
    const token = `${owner}:${randomUUID()}`;
    const rows = await this.#sql.all(this.#claim.sql, [owner, token, now + leaseMs, now, now, limit]);
    const full = this.#claim.returnsBatchFields ? rows : await this.#withBatchFields(rows);
    return full.map(toClaimed).sort((a, b) => a.line - b.line);
  }

  /** The claimed rows with their batch's app, flavor and endpoint, read once per batch. */
  async #withBatchFields(rows: SqlRow[]): Promise<SqlRow[]> {
    const batches = new Map<string, SqlRow>();
    for (const row of rows) {
      const id = String(row.batch_id);
      if (batches.has(id)) continue;
      const batch = (await this.#sql.all('SELECT app, flavor, endpoint FROM batches WHERE id = ?', [id]))[0];
      if (batch !== undefined) batches.set(id, batch);
    }
    return rows.map((row) => ({ ...batches.get(String(row.batch_id)), ...row }));
  }

  async renewLeases(owner: string, until: number): Promise<void> {
    await this.#sql.run(RENEW_LEASES, [until, owner]);
  }

  async completeItem(
    item: ClaimedItem,
    result: ItemResult,
    now: number,
    needsLedgerRow: boolean,
  ): Promise<CompleteOutcome> {
    const values = [result.state, result.statusCode, result.requestId, result.response, now];
    const key = [item.batchId, item.line, item.leaseToken];
    const sql = needsLedgerRow ? COMPLETE_ITEM_RECORDED : COMPLETE_ITEM;
    if ((await this.#sql.run(sql, [...values, ...key])) > 0) return 'done';
    return (await this.#sql.all(ITEM_HELD, key)).length > 0 ? 'unrecorded' : 'lost';
  }

  async deferItem(item: ClaimedItem, notBefore: number): Promise<void> {
    await this.#sql.run(DEFER_ITEM, [notBefore, item.batchId, item.line, item.leaseToken]);
  }

  async batchesToClose(now: number, limit: number): Promise<BatchRecord[]> {
    const rows = await this.#sql.all(BATCHES_TO_CLOSE, [now, now, limit]);
    return Promise.all(rows.map((row) => this.#withCounts(row)));
  }

  async readResults(batchId: string, afterLine: number, limit: number): Promise<BatchResultRow[]> {
    return (await this.#sql.all(READ_RESULTS, [batchId, afterLine, limit])).map(toResult);
  }

  async closeBatch(batchId: string, close: BatchClose, now: number): Promise<boolean> {
    const times = closeTimes(close.status, now);
    return this.#sql.transaction(function* () {
      const closing = [close.status, close.output?.id ?? null, close.error?.id ?? null];
      const stamps = [times.finalizingAt, times.completedAt, times.cancelledAt, times.expiredAt];
      if ((yield run(CLOSE_BATCH, [...closing, ...stamps, batchId])) === 0) return false;
      yield run(END_UNRUN, [close.status === 'expired' ? 'expired' : 'canceled', now, batchId]);
      for (const file of [close.output, close.error])
        if (file !== null) yield run(INSERT_FILE, fileValues(file));
      return true;
    });
  }

  async deleteExpired(now: number, batchRetentionMs: number): Promise<number> {
    return this.#sql.transaction(function* () {
      let gone = 0;
      for (const { id } of (yield all(EXPIRED_FILES, [now])) as SqlRow[]) {
        gone += yield run(DELETE_FILE_BY_ID, [String(id)]);
        yield run(DELETE_CHUNKS, [String(id)]);
      }
      for (const { id } of (yield all(EXPIRED_BATCHES, [now - batchRetentionMs])) as SqlRow[]) {
        yield run(DELETE_ITEMS, [String(id)]);
        gone += yield run(DELETE_BATCH, [String(id)]);
      }
      return gone;
    });
  }
}
