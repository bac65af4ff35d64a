import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { UsageLedger, UsageQuery, UsageRecord, UsageTotalsQuery, UsageTotalsRow } from '../ports.ts';
import { ROLLUP_DELETES, wholeBucketsBefore } from '../rollup-retention.ts';
import type { RunSql } from '../sql-ledger-insights.ts';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  pushAttemptValues,
  pushRequestValues,
  REQUEST_COLUMNS,
  type RequestRow,
  type TotalsRowRaw,
  toRecord,
  toTotalsRow,
  totalsSql,
} from '../usage-rows.ts';
import { deleteOldestRequests, deleteRollupBuckets, ROWS_PER_DELETE } from './delete-ledger-before.js';
import type { LedgerWriterThread } from './ledger-writer.ts';
import { type InsertShape, type LedgerBatch, LedgerBatchWriter } from './write-ledger-batch.js';

export const REQUEST_INSERT: InsertShape = {
  head: `INSERT INTO usage_requests (${REQUEST_COLUMNS.join(', ')}) VALUES`,
  columns: REQUEST_COLUMNS.length,
  tail: 'ON CONFLICT (id) DO NOTHING',
};
export const ATTEMPT_INSERT: InsertShape = {
  head: `INSERT INTO usage_attempts (${ATTEMPT_COLUMNS.join(', ')}) VALUES`,
  columns: ATTEMPT_COLUMNS.length,
  tail: 'ON CONFLICT (usage_id, attempt) DO NOTHING',
};
/** Records in the flat form the batch writer takes (see LedgerBatch). */
export function ledgerBatchOf(records: readonly UsageRecord[]): LedgerBatch {
  // Grown by pushes, not sized ahead: an array made with `new Array(n)` stays holey, and V8's
  // structured clone copies a holey array index by index, not as one dense run.
  const batch: LedgerBatch = { requests: [], attempts: [], attemptCounts: [] };
  for (const record of records) {
    pushRequestValues(record, batch.requests);
    for (const attempt of record.attempts) pushAttemptValues(record.id, attempt, batch.attempts);
    batch.attemptCounts.push(record.attempts.length);
  }
  return batch;
}

const DAY_EXPRESSION = "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')";

export class SqliteUsageLedger implements UsageLedger {
  readonly #db: DatabaseSync;
  readonly #selectAttempts: StatementSync;
  readonly #writer: LedgerWriterThread | undefined;
  /** Commits a batch: on the writer thread, or on this connection. */
  readonly #write: (batch: LedgerBatch) => void | Promise<void>;

  /** Runs a read that may go over many rows (totals): on the reader's thread where there is one. */
  readonly #read: RunSql;

  /**
   * With a `writer`, batches are written on its thread; without, on this connection. `read` runs
   * the totals' query: on the reader's thread (ledger-reader.ts), or on this connection.
   */
  constructor(db: DatabaseSync, writer: LedgerWriterThread | undefined, read: RunSql) {
    this.#db = db;
    this.#writer = writer;
    this.#read = read;
    if (writer !== undefined) this.#write = (batch) => writer.write(batch);
    else {
      const batches = new LedgerBatchWriter(db, REQUEST_INSERT, ATTEMPT_INSERT);
      this.#write = (batch) => batches.write(batch);
    }
    this.#selectAttempts = db.prepare('SELECT * FROM usage_attempts WHERE usage_id = ? ORDER BY attempt');
  }

  async appendBatch(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#write(ledgerBatchOf(records));
  }

  async readRecords(query: UsageQuery): Promise<UsageRecord[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.app !== undefined) {
      where.push('app = ?');
      params.push(query.app);
    }
    if (query.from !== undefined) {
      where.push('created_at >= ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('created_at < ?');
      params.push(query.to);
    }
    if (query.after !== undefined) {
      where.push('(created_at, id) > (?, ?)');
      params.push(query.after.createdAt, query.after.id);
    }
    const sql = `SELECT * FROM usage_requests ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at, id LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...params, query.limit) as unknown as RequestRow[];
    return rows.map((row) => toRecord(row, this.#selectAttempts.all(row.id) as unknown as AttemptRow[]));
  }

  async totals(query: UsageTotalsQuery): Promise<UsageTotalsRow[]> {
    const { select, group } = totalsSql(query.groupBy, DAY_EXPRESSION);
    const sql = `SELECT ${select} FROM usage_requests WHERE app = ? AND created_at >= ? AND created_at < ? ${group}`;
    const rows = (await this.#read(
      sql,
      [query.app, query.from, query.to],
      query.app,
    )) as unknown as TotalsRowRaw[];
    return rows.map((row) => toTotalsRow(row, query.groupBy));
  }

  /** Whether a request or a rollup bucket lies wholly before the cutoff. */
  #anythingBefore(cutoff: number): boolean {
    const request = this.#db.prepare('SELECT 1 FROM usage_requests WHERE created_at < ? LIMIT 1').get(cutoff);
    return (
      request !== undefined ||
      ROLLUP_DELETES.some(
        ({ any, grainMs }) => this.#db.prepare(any).get(wholeBucketsBefore(cutoff, grainMs)) !== undefined,
      )
    );
  }

  /**
   * Retention: on the writer's thread where there is one (delete-ledger-before.js), else on this
   * connection; ROWS_PER_DELETE requests a transaction, the oldest first, then the rollups' whole
   * buckets. A sweep cut short leaves only older rows, which the next one deletes.
   */
  async deleteBefore(cutoff: number): Promise<number> {
    // Most sweeps find nothing to delete (the one at start-up nearly always): asked here, by the
    // indexes, in microseconds, so that the writer's thread (a second V8 isolate, about 13 MB of
    // RSS) is not started for nothing before the first request.
    if (!this.#anythingBefore(cutoff)) return 0;
    const writer = this.#writer;
    let deleted = 0;
    for (;;) {
      const chunk =
        writer === undefined ? deleteOldestRequests(this.#db, cutoff) : await writer.deleteOldest(cutoff);
      deleted += chunk;
      if (chunk < ROWS_PER_DELETE) break;
    }
    const rollups = ROLLUP_DELETES.map(({ sql, grainMs }) => ({
      sql,
      before: wholeBucketsBefore(cutoff, grainMs),
    }));
    if (writer === undefined) deleteRollupBuckets(this.#db, rollups);
    else await writer.deleteRollups(rollups);
    return deleted;
  }
}
