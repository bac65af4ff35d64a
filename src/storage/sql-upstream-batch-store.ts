import { randomUUID } from 'node:crypto';
import { COUNT_ITEMS, toBatch, toCounts } from './batch-sql.ts';
import type { CompleteOutcome, ItemResult } from './batch-store.ts';
import { run, type SqlExecutor, type SqlRow } from './sql-executor.ts';
import type {
  UpstreamBatch,
  UpstreamBatchStore,
  UpstreamChange,
  UpstreamItem,
  UpstreamState,
} from './upstream-batch-store.ts';

const ROUTE =
  "UPDATE batches SET upstream_slot = ?, upstream_state = 'submit', upstream_next = 0 WHERE id = ?";
const DUE = `SELECT id FROM batches WHERE upstream_slot IS NOT NULL AND upstream_state <> 'done'
  AND status IN ('in_progress', 'cancelling') AND upstream_next <= ?
  AND (upstream_until IS NULL OR upstream_until < ?) ORDER BY created_at LIMIT ?`;
/**
 * One conditional UPDATE per batch: on PostgreSQL the row is locked and its WHERE checked again,
 * on SQLite there is one writer, so of two instances claiming one batch only one changes a row.
 */
const TAKE = `UPDATE batches SET upstream_owner = ?, upstream_token = ?, upstream_until = ?
  WHERE id = ? AND upstream_state <> 'done' AND (upstream_until IS NULL OR upstream_until < ?)`;
const READ = 'SELECT * FROM batches WHERE id = ? AND upstream_token = ?';
const CHANGES = `upstream_state = COALESCE(?, upstream_state), upstream_id = COALESCE(?, upstream_id),
  upstream_file_id = COALESCE(?, upstream_file_id), upstream_cancel = COALESCE(?, upstream_cancel),
  upstream_polls = COALESCE(?, upstream_polls), upstream_submitting_at = COALESCE(?, upstream_submitting_at),
  upstream_next = ?`;
const UPDATE_RELEASE = `UPDATE batches SET ${CHANGES}, upstream_owner = NULL, upstream_token = NULL,
  upstream_until = NULL WHERE id = ? AND upstream_token = ?`;
/** Keeps the lease: only a submission about to be sent, which a cancel made first forbids. */
const UPDATE_KEEP = `UPDATE batches SET ${CHANGES} WHERE id = ? AND upstream_token = ? AND status = 'in_progress'`;
const UNROUTE = `UPDATE batches SET upstream_slot = NULL, upstream_state = NULL, upstream_owner = NULL,
  upstream_token = NULL, upstream_until = NULL WHERE id = ? AND upstream_token = ?`;
const CANCEL_IF_CANCELLING = `UPDATE batch_items SET state = 'canceled', finished_at = ? WHERE batch_id = ?
  AND state = 'pending' AND EXISTS (SELECT 1 FROM batches WHERE id = ? AND status = 'cancelling')`;
const ITEM_FIELDS = 'line, custom_id, ledger_id, body, state';
const ITEMS = `SELECT ${ITEM_FIELDS} FROM batch_items WHERE batch_id = ? AND line > ? ORDER BY line LIMIT ?`;
const ITEM = `SELECT ${ITEM_FIELDS} FROM batch_items WHERE batch_id = ? AND custom_id = ?`;
const COMPLETE = `UPDATE batch_items SET state = ?, status_code = ?, request_id = ?, response = ?, finished_at = ?
  WHERE batch_id = ? AND line = ? AND state = 'pending'`;
const COMPLETE_RECORDED = `${COMPLETE} AND EXISTS (SELECT 1 FROM usage_requests WHERE id = batch_items.ledger_id)`;
const PENDING = "SELECT 1 AS pending FROM batch_items WHERE batch_id = ? AND line = ? AND state = 'pending'";
const END_REST = `UPDATE batch_items SET state = ?, status_code = ?, request_id = ?, response = ?, finished_at = ?
  WHERE batch_id = ? AND state = 'pending'`;

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function toItem(row: SqlRow): UpstreamItem {
  return {
    line: Number(row.line),
    customId: String(row.custom_id),
    ledgerId: String(row.ledger_id),
    body: String(row.body),
    state: String(row.state),
  };
}

/** The UpstreamBatchStore on either engine, over the batch store's executor (same statements for both). */
export class SqlUpstreamBatchStore implements UpstreamBatchStore {
  readonly #sql: SqlExecutor;

  constructor(sql: SqlExecutor) {
    this.#sql = sql;
  }

  async route(batchId: string, slot: string): Promise<void> {
    await this.#sql.run(ROUTE, [slot, batchId]);
  }

  async claim(owner: string, now: number, leaseMs: number, limit: number): Promise<UpstreamBatch[]> {
    const claimed: UpstreamBatch[] = [];
    for (const { id } of await this.#sql.all(DUE, [now, now, limit])) {
      const token = `${owner}:${randomUUID()}`;
      if ((await this.#sql.run(TAKE, [owner, token, now + leaseMs, String(id), now])) === 0) continue;
      const row = (await this.#sql.all(READ, [String(id), token]))[0];
      if (row === undefined) continue;
      const counts = toCounts(await this.#sql.all(COUNT_ITEMS, [String(id)]));
      claimed.push({
        batch: toBatch(row, counts),
        slot: String(row.upstream_slot),
        state: row.upstream_state as UpstreamState,
        upstreamId: text(row.upstream_id),
        fileId: text(row.upstream_file_id),
        cancelSent: Number(row.upstream_cancel) === 1,
        polls: Number(row.upstream_polls),
        submittingAt: row.upstream_submitting_at == null ? null : Number(row.upstream_submitting_at),
        leaseToken: token,
      });
    }
    return claimed;
  }

  async update(
    batchId: string,
    leaseToken: string,
    change: UpstreamChange,
    release = true,
  ): Promise<boolean> {
    const values = [
      change.state ?? null,
      change.upstreamId ?? null,
      change.fileId ?? null,
      change.cancelSent === undefined ? null : change.cancelSent ? 1 : 0,
      change.polls ?? null,
      change.submittingAt ?? null,
      change.next,
      batchId,
      leaseToken,
    ];
    return (await this.#sql.run(release ? UPDATE_RELEASE : UPDATE_KEEP, values)) > 0;
  }

  async unroute(batchId: string, leaseToken: string, now: number): Promise<boolean> {
    return this.#sql.transaction(function* () {
      if ((yield run(UNROUTE, [batchId, leaseToken])) === 0) return false;
      yield run(CANCEL_IF_CANCELLING, [now, batchId, batchId]);
      return true;
    });
  }

  async renew(leaseToken: string, until: number): Promise<void> {
    await this.#sql.run('UPDATE batches SET upstream_until = ? WHERE upstream_token = ?', [
      until,
      leaseToken,
    ]);
  }

  async items(batchId: string, afterLine: number, limit: number): Promise<UpstreamItem[]> {
    return (await this.#sql.all(ITEMS, [batchId, afterLine, limit])).map(toItem);
  }

  async item(batchId: string, customId: string): Promise<UpstreamItem | undefined> {
    const row = (await this.#sql.all(ITEM, [batchId, customId]))[0];
    return row === undefined ? undefined : toItem(row);
  }

  async complete(
    batchId: string,
    line: number,
    result: ItemResult,
    now: number,
    needsLedgerRow: boolean,
  ): Promise<CompleteOutcome> {
    const values = [result.state, result.statusCode, result.requestId, result.response, now, batchId, line];
    if ((await this.#sql.run(needsLedgerRow ? COMPLETE_RECORDED : COMPLETE, values)) > 0) return 'done';
    return (await this.#sql.all(PENDING, [batchId, line])).length > 0 ? 'unrecorded' : 'lost';
  }

  async endRest(
    batchId: string,
    state: 'canceled' | 'expired' | 'errored',
    result: ItemResult | null,
    now: number,
  ): Promise<number> {
    const values = [state, result?.statusCode ?? null, result?.requestId ?? null, result?.response ?? null];
    return this.#sql.run(END_REST, [...values, now, batchId]);
  }
}
