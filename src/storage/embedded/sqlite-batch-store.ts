import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
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
  READ_CHUNKS,
  READ_RESULTS,
  RENEW_LEASES,
  START_BATCH,
  toBatch,
  toClaimed,
  toCounts,
  toFile,
  toResult,
} from '../batch-sql.ts';
import type {
  BatchClose,
  BatchFileRecord,
  BatchFlavor,
  BatchRecord,
  BatchResultRow,
  BatchStore,
  ClaimedItem,
  CompleteOutcome,
  ItemResult,
  NewBatch,
  NewBatchItem,
} from '../batch-store.ts';

type Row = Record<string, unknown>;
type Value = string | number | null | Uint8Array;

/**
 * The embedded BatchStore. SQLite has one writer at a time, so a claim (one UPDATE … RETURNING)
 * can never hand an item to two instances sharing the file; a multi-statement change runs in one
 * IMMEDIATE transaction.
 */
export class SqliteBatchStore implements BatchStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #run(sql: string, ...values: Value[]): number {
    return Number(this.#db.prepare(sql).run(...values).changes);
  }

  #all(sql: string, ...values: Value[]): Row[] {
    return this.#db.prepare(sql).all(...values) as Row[];
  }

  #inTransaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async createFile(file: BatchFileRecord): Promise<void> {
    this.#run(INSERT_FILE, ...fileValues(file));
  }

  async appendChunk(fileId: string, seq: number, data: Uint8Array): Promise<void> {
    this.#run(INSERT_CHUNK, fileId, seq, data);
  }

  async finishFile(fileId: string, bytes: number, lines: number): Promise<void> {
    this.#run(FINISH_FILE, bytes, lines, fileId);
  }

  async findFile(app: string, id: string, now: number): Promise<BatchFileRecord | undefined> {
    const row = this.#all(FIND_FILE, app, id, now)[0];
    return row === undefined ? undefined : toFile(row);
  }

  async readChunks(fileId: string, fromSeq: number, limit: number): Promise<Uint8Array[]> {
    return this.#all(READ_CHUNKS, fileId, fromSeq, limit).map((row) => row.data as Uint8Array);
  }

  async deleteFile(app: string, id: string): Promise<boolean> {
    return this.#inTransaction(() => {
      const gone = this.#run(DELETE_FILE, app, id) > 0;
      if (gone) this.#run(DELETE_CHUNKS, id);
      return gone;
    });
  }

  async createBatch(batch: NewBatch): Promise<void> {
    this.#run(INSERT_BATCH, ...batchValues(batch));
  }

  async addItems(batchId: string, items: readonly NewBatchItem[]): Promise<void> {
    this.#inTransaction(() => {
      for (let at = 0; at < items.length; at += ITEMS_PER_INSERT) {
        const chunk = items.slice(at, at + ITEMS_PER_INSERT);
        const rows = chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
        this.#run(
          `INSERT INTO batch_items ${ITEM_COLUMNS} VALUES ${rows}`,
          ...chunk.flatMap((item) => itemValues(batchId, item)),
        );
      }
    });
  }

  async startBatch(batchId: string, now: number): Promise<void> {
    this.#run(START_BATCH, now, batchId);
  }

  async failBatch(batchId: string, errors: string, now: number): Promise<void> {
    this.#inTransaction(() => {
      this.#run(FAIL_BATCH, now, errors, batchId);
      this.#run(DELETE_ITEMS, batchId);
    });
  }

  #withCounts(row: Row): BatchRecord {
    return toBatch(row, toCounts(this.#all(COUNT_ITEMS, String(row.id))));
  }

  async getBatch(app: string, id: string): Promise<BatchRecord | undefined> {
    const row = this.#all(GET_BATCH, app, id)[0];
    return row === undefined ? undefined : this.#withCounts(row);
  }

  async listBatches(app: string, flavor: BatchFlavor, limit: number, after?: string): Promise<BatchRecord[]> {
    const rows =
      after === undefined
        ? this.#all(LIST_BATCHES, app, flavor, limit)
        : this.#all(LIST_BATCHES_AFTER, app, flavor, app, after, limit);
    return rows.map((row) => this.#withCounts(row));
  }

  async cancelBatch(app: string, id: string, now: number): Promise<BatchRecord | undefined> {
    this.#inTransaction(() => {
      if (this.#run(CANCEL_BATCH, now, app, id) > 0) this.#run(CANCEL_PENDING, now, id);
    });
    return this.getBatch(app, id);
  }

  async claimItems(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedItem[]> {
    const token = `${owner}:${randomUUID()}`;
    const rows = this.#all(
      `UPDATE batch_items SET state = 'running', lease_owner = ?, lease_token = ?, lease_until = ?, tries = tries + 1
       WHERE rowid IN (SELECT i.rowid FROM batch_items i JOIN batches b ON b.id = i.batch_id
         WHERE b.status = 'in_progress'
           AND ((i.state = 'pending' AND i.not_before <= ?) OR (i.state = 'running' AND i.lease_until < ?))
         ORDER BY b.created_at, i.batch_id, i.line LIMIT ?)
       RETURNING batch_id, line, custom_id, ledger_id, body, lease_token, tries`,
      owner,
      token,
      now + leaseMs,
      now,
      now,
      limit,
    );
    return this.#withBatchFields(rows);
  }

  /** The claimed rows with their batch's app, flavor and endpoint. */
  #withBatchFields(rows: Row[]): ClaimedItem[] {
    const batches = new Map<string, Row>();
    for (const row of rows) {
      const id = String(row.batch_id);
      if (!batches.has(id)) {
        const batch = this.#all('SELECT app, flavor, endpoint FROM batches WHERE id = ?', id)[0];
        if (batch !== undefined) batches.set(id, batch);
      }
    }
    return rows
      .sort((a, b) => Number(a.line) - Number(b.line))
      .map((row) => toClaimed({ ...batches.get(String(row.batch_id)), ...row }));
  }

  async renewLeases(owner: string, until: number): Promise<void> {
    this.#run(RENEW_LEASES, until, owner);
  }

  async completeItem(
    item: ClaimedItem,
    result: ItemResult,
    now: number,
    needsLedgerRow: boolean,
  ): Promise<CompleteOutcome> {
    const values = [result.state, result.statusCode, result.requestId, result.response, now];
    const key = [item.batchId, item.line, item.leaseToken];
    if (this.#run(needsLedgerRow ? COMPLETE_ITEM_RECORDED : COMPLETE_ITEM, ...values, ...key) > 0)
      return 'done';
    return this.#all(ITEM_HELD, ...key).length > 0 ? 'unrecorded' : 'lost';
  }

  async deferItem(item: ClaimedItem, notBefore: number): Promise<void> {
    this.#run(DEFER_ITEM, notBefore, item.batchId, item.line, item.leaseToken);
  }

  async batchesToClose(now: number, limit: number): Promise<BatchRecord[]> {
    return this.#all(BATCHES_TO_CLOSE, now, now, limit).map((row) => this.#withCounts(row));
  }

  async readResults(batchId: string, afterLine: number, limit: number): Promise<BatchResultRow[]> {
    return this.#all(READ_RESULTS, batchId, afterLine, limit).map(toResult);
  }

  async closeBatch(batchId: string, close: BatchClose, now: number): Promise<boolean> {
    const times = closeTimes(close.status, now);
    return this.#inTransaction(() => {
      const closed =
        this.#run(
          CLOSE_BATCH,
          close.status,
          close.output?.id ?? null,
          close.error?.id ?? null,
          times.finalizingAt,
          times.completedAt,
          times.cancelledAt,
          times.expiredAt,
          batchId,
        ) > 0;
      if (!closed) return false;
      this.#run(END_UNRUN, close.status === 'expired' ? 'expired' : 'canceled', now, batchId);
      for (const file of [close.output, close.error])
        if (file !== null) this.#run(INSERT_FILE, ...fileValues(file));
      return true;
    });
  }

  async deleteExpired(now: number, batchRetentionMs: number): Promise<number> {
    return this.#inTransaction(() => {
      let gone = 0;
      for (const { id } of this.#all(EXPIRED_FILES, now)) {
        gone += this.#run(DELETE_FILE_BY_ID, String(id));
        this.#run(DELETE_CHUNKS, String(id));
      }
      for (const { id } of this.#all(EXPIRED_BATCHES, now - batchRetentionMs)) {
        this.#run(DELETE_ITEMS, String(id));
        gone += this.#run(DELETE_BATCH, String(id));
      }
      return gone;
    });
  }
}
