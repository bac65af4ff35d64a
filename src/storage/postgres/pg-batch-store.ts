import { randomUUID } from 'node:crypto';
import type pg from 'pg';
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
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import type { PgConnections } from './pg-connections.ts';
import { inTransaction } from './pg-transaction.ts';

type Row = Record<string, unknown>;
/** Where a statement runs: a transaction's connection, or the pool. */
type Runner = { query(text: string, values: unknown[]): Promise<pg.QueryResult> };

/**
 * Items claimed with FOR UPDATE SKIP LOCKED: instances claiming at once each lock different rows,
 * and a row is re-checked once locked, so no item is handed out twice.
 */
const CLAIM = `UPDATE batch_items i SET state = 'running', lease_owner = $1, lease_token = $2, lease_until = $3,
    tries = i.tries + 1
  FROM (SELECT p.batch_id, p.line FROM batch_items p JOIN batches b ON b.id = p.batch_id
    WHERE b.status = 'in_progress'
      AND ((p.state = 'pending' AND p.not_before <= $4) OR (p.state = 'running' AND p.lease_until < $4))
    ORDER BY b.created_at, p.batch_id, p.line LIMIT $5 FOR UPDATE OF p SKIP LOCKED) pick, batches b
  WHERE i.batch_id = pick.batch_id AND i.line = pick.line AND b.id = i.batch_id
  RETURNING i.batch_id, i.line, i.custom_id, i.ledger_id, i.body, i.lease_token, i.tries, b.app, b.flavor, b.endpoint`;

/** The PostgreSQL BatchStore: every statement on the pool's bounded default (pg-statement-timeout.ts). */
export class PgBatchStore implements BatchStore {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async #all(sql: string, values: unknown[], on: Runner = this.#pool): Promise<Row[]> {
    return (await on.query(numberPlaceholders(sql), values)).rows as Row[];
  }

  async #run(sql: string, values: unknown[], on: Runner = this.#pool): Promise<number> {
    return (await on.query(numberPlaceholders(sql), values)).rowCount ?? 0;
  }

  async createFile(file: BatchFileRecord): Promise<void> {
    await this.#run(INSERT_FILE, fileValues(file));
  }

  async appendChunk(fileId: string, seq: number, data: Uint8Array): Promise<void> {
    await this.#run(INSERT_CHUNK, [fileId, seq, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  }

  async finishFile(fileId: string, bytes: number, lines: number): Promise<void> {
    await this.#run(FINISH_FILE, [bytes, lines, fileId]);
  }

  async findFile(app: string, id: string, now: number): Promise<BatchFileRecord | undefined> {
    const row = (await this.#all(FIND_FILE, [app, id, now]))[0];
    return row === undefined ? undefined : toFile(row);
  }

  async readChunks(fileId: string, fromSeq: number, limit: number): Promise<Uint8Array[]> {
    return (await this.#all(READ_CHUNKS, [fileId, fromSeq, limit])).map((row) => row.data as Uint8Array);
  }

  async deleteFile(app: string, id: string): Promise<boolean> {
    return inTransaction(this.#pool, async (client) => {
      const gone = (await this.#run(DELETE_FILE, [app, id], client)) > 0;
      if (gone) await this.#run(DELETE_CHUNKS, [id], client);
      return gone;
    });
  }

  async createBatch(batch: NewBatch): Promise<void> {
    await this.#run(INSERT_BATCH, batchValues(batch));
  }

  async addItems(batchId: string, items: readonly NewBatchItem[]): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      for (let at = 0; at < items.length; at += ITEMS_PER_INSERT) {
        const chunk = items.slice(at, at + ITEMS_PER_INSERT);
        const rows = chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
        const values = chunk.flatMap((item) => itemValues(batchId, item));
        await this.#run(`INSERT INTO batch_items ${ITEM_COLUMNS} VALUES ${rows}`, values, client);
      }
    });
  }

  async startBatch(batchId: string, now: number): Promise<void> {
    await this.#run(START_BATCH, [now, batchId]);
  }

  async failBatch(batchId: string, errors: string, now: number): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await this.#run(FAIL_BATCH, [now, errors, batchId], client);
      await this.#run(DELETE_ITEMS, [batchId], client);
    });
  }

  async #withCounts(row: Row): Promise<BatchRecord> {
    return toBatch(row, toCounts(await this.#all(COUNT_ITEMS, [String(row.id)])));
  }

  async getBatch(app: string, id: string): Promise<BatchRecord | undefined> {
    const row = (await this.#all(GET_BATCH, [app, id]))[0];
    return row === undefined ? undefined : this.#withCounts(row);
  }

  async listBatches(app: string, flavor: BatchFlavor, limit: number, after?: string): Promise<BatchRecord[]> {
    const rows =
      after === undefined
        ? await this.#all(LIST_BATCHES, [app, flavor, limit])
        : await this.#all(LIST_BATCHES_AFTER, [app, flavor, app, after, limit]);
    return Promise.all(rows.map((row) => this.#withCounts(row)));
  }

  async cancelBatch(app: string, id: string, now: number): Promise<BatchRecord | undefined> {
    await inTransaction(this.#pool, async (client) => {
      if ((await this.#run(CANCEL_BATCH, [now, app, id], client)) > 0)
        await this.#run(CANCEL_PENDING, [now, id], client);
    });
    return this.getBatch(app, id);
  }

  async claimItems(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedItem[]> {
    const token = `${owner}:${randomUUID()}`;
    const { rows } = await this.#pool.query(CLAIM, [owner, token, now + leaseMs, now, limit]);
    return (rows as Row[]).map(toClaimed).sort((a, b) => a.line - b.line);
  }

  async renewLeases(owner: string, until: number): Promise<void> {
    await this.#run(RENEW_LEASES, [until, owner]);
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
    if ((await this.#run(sql, [...values, ...key])) > 0) return 'done';
    return (await this.#all(ITEM_HELD, key)).length > 0 ? 'unrecorded' : 'lost';
  }

  async deferItem(item: ClaimedItem, notBefore: number): Promise<void> {
    await this.#run(DEFER_ITEM, [notBefore, item.batchId, item.line, item.leaseToken]);
  }

  async batchesToClose(now: number, limit: number): Promise<BatchRecord[]> {
    const rows = await this.#all(BATCHES_TO_CLOSE, [now, now, limit]);
    return Promise.all(rows.map((row) => this.#withCounts(row)));
  }

  async readResults(batchId: string, afterLine: number, limit: number): Promise<BatchResultRow[]> {
    return (await this.#all(READ_RESULTS, [batchId, afterLine, limit])).map(toResult);
  }

  async closeBatch(batchId: string, close: BatchClose, now: number): Promise<boolean> {
    const times = closeTimes(close.status, now);
    return inTransaction(this.#pool, async (client) => {
      const closed =
        (await this.#run(
          CLOSE_BATCH,
          [
            close.status,
            close.output?.id ?? null,
            close.error?.id ?? null,
            times.finalizingAt,
            times.completedAt,
            times.cancelledAt,
            times.expiredAt,
            batchId,
          ],
          client,
        )) > 0;
      if (!closed) return false;
      await this.#run(END_UNRUN, [close.status === 'expired' ? 'expired' : 'canceled', now, batchId], client);
      for (const file of [close.output, close.error])
        if (file !== null) await this.#run(INSERT_FILE, fileValues(file), client);
      return true;
    });
  }

  async deleteExpired(now: number, batchRetentionMs: number): Promise<number> {
    return inTransaction(this.#pool, async (client) => {
      let gone = 0;
      for (const { id } of await this.#all(EXPIRED_FILES, [now], client)) {
        gone += await this.#run(DELETE_FILE_BY_ID, [String(id)], client);
        await this.#run(DELETE_CHUNKS, [String(id)], client);
      }
      for (const { id } of await this.#all(EXPIRED_BATCHES, [now - batchRetentionMs], client)) {
        await this.#run(DELETE_ITEMS, [String(id)], client);
        gone += await this.#run(DELETE_BATCH, [String(id)], client);
      }
      return gone;
    });
  }
}
