import type {
  BatchFileRecord,
  BatchRecord,
  BatchResultRow,
  ClaimedItem,
  ItemCounts,
  ItemState,
  NewBatch,
} from './batch-store.ts';

/*
 * The BatchStore's statements, written once with `?` placeholders for both engines (PostgreSQL
 * numbers them), and the mapping of their rows. Where the engines differ (claiming under
 * concurrency) each adapter writes its own.
 */

export const INSERT_FILE = `INSERT INTO batch_files (id, app, purpose, filename, bytes, lines, status, batch_id, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`;
export const INSERT_CHUNK = 'INSERT INTO batch_file_chunks (file_id, seq, data) VALUES (?, ?, ?)';
export const FINISH_FILE = "UPDATE batch_files SET bytes = ?, lines = ?, status = 'processed' WHERE id = ?";
export const FIND_FILE =
  "SELECT * FROM batch_files WHERE app = ? AND id = ? AND status = 'processed' AND expires_at > ?";
/** GET /v1/files: a page in (created_at, id) order, keyset after a file of the app. */
export function listFilesSql(order: 'asc' | 'desc', purpose: boolean, after: boolean): string {
  const direction = order === 'asc' ? 'ASC' : 'DESC';
  const past = order === 'asc' ? '>' : '<';
  return `SELECT * FROM batch_files WHERE app = ? AND status = 'processed' AND expires_at > ?
    ${purpose ? 'AND purpose = ?' : ''}
    ${after ? `AND (created_at, id) ${past} (SELECT created_at, id FROM batch_files WHERE app = ? AND id = ?)` : ''}
    ORDER BY created_at ${direction}, id ${direction} LIMIT ?`;
}
export const READ_CHUNKS =
  'SELECT data FROM batch_file_chunks WHERE file_id = ? AND seq >= ? ORDER BY seq LIMIT ?';
export const DELETE_FILE = 'DELETE FROM batch_files WHERE app = ? AND id = ?';
export const DELETE_CHUNKS = 'DELETE FROM batch_file_chunks WHERE file_id = ?';

export const INSERT_BATCH = `INSERT INTO batches (id, app, flavor, endpoint, input_file_id, completion_window, metadata,
  status, total, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'validating', ?, ?, ?)`;
export const ITEM_COLUMNS = '(batch_id, line, custom_id, ledger_id, body, state)';
export const START_BATCH =
  "UPDATE batches SET status = 'in_progress', in_progress_at = ? WHERE id = ? AND status = 'validating'";
export const FAIL_BATCH =
  "UPDATE batches SET status = 'failed', failed_at = ?, errors = ? WHERE id = ? AND status = 'validating'";
export const DELETE_ITEMS = 'DELETE FROM batch_items WHERE batch_id = ?';
export const GET_BATCH = 'SELECT * FROM batches WHERE app = ? AND id = ?';
export const COUNT_ITEMS = 'SELECT state, COUNT(*) AS n FROM batch_items WHERE batch_id = ? GROUP BY state';
export const LIST_BATCHES =
  'SELECT * FROM batches WHERE app = ? AND flavor = ? ORDER BY created_at DESC, id DESC LIMIT ?';
export const LIST_BATCHES_AFTER = `SELECT * FROM batches WHERE app = ? AND flavor = ?
  AND (created_at, id) < (SELECT created_at, id FROM batches WHERE app = ? AND id = ?)
  ORDER BY created_at DESC, id DESC LIMIT ?`;
export const CANCEL_BATCH = `UPDATE batches SET status = 'cancelling', cancelling_at = ?
  WHERE app = ? AND id = ? AND status IN ('validating', 'in_progress')`;
/** A batch a vendor has (or may have) keeps its items: their results come from the vendor's cancel. */
export const CANCEL_PENDING = `UPDATE batch_items SET state = 'canceled', finished_at = ? WHERE batch_id = ? AND state = 'pending'
  AND NOT EXISTS (SELECT 1 FROM batches WHERE id = ? AND upstream_state IN ('submitting', 'polling'))`;

export const RENEW_LEASES =
  "UPDATE batch_items SET lease_until = ? WHERE lease_owner = ? AND state = 'running'";
export const COMPLETE_ITEM = `UPDATE batch_items SET state = ?, status_code = ?, request_id = ?, response = ?,
  finished_at = ?, lease_owner = NULL, lease_until = NULL
  WHERE batch_id = ? AND line = ? AND state = 'running' AND lease_token = ?`;
export const COMPLETE_ITEM_RECORDED = `${COMPLETE_ITEM}
  AND EXISTS (SELECT 1 FROM usage_requests WHERE id = batch_items.ledger_id)`;
export const ITEM_HELD =
  "SELECT 1 AS held FROM batch_items WHERE batch_id = ? AND line = ? AND state = 'running' AND lease_token = ?";
export const DEFER_ITEM = `UPDATE batch_items SET state = 'pending', not_before = ?, lease_owner = NULL, lease_until = NULL
  WHERE batch_id = ? AND line = ? AND state = 'running' AND lease_token = ?`;
/**
 * Open batches with nothing left to run, or past their expiry. A running batch waits for every
 * leased item (a lease that ran out is claimed again); a cancelled one only for live leases.
 */
export const BATCHES_TO_CLOSE = `SELECT * FROM batches b WHERE b.status IN ('in_progress', 'cancelling')
  AND (b.expires_at <= ? OR NOT EXISTS (SELECT 1 FROM batch_items i WHERE i.batch_id = b.id
    AND (i.state = 'pending' OR (i.state = 'running' AND (b.status = 'in_progress' OR i.lease_until >= ?)))))
  ORDER BY b.created_at LIMIT ?`;
export const READ_RESULTS = `SELECT line, custom_id, ledger_id, state, status_code, request_id, response FROM batch_items
  WHERE batch_id = ? AND line > ? ORDER BY line LIMIT ?`;
/** What is left unrun when a batch closes ends as the close says: `canceled` or `expired`. */
export const END_UNRUN = `UPDATE batch_items SET state = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL
  WHERE batch_id = ? AND state IN ('pending', 'running')`;
export const CLOSE_BATCH = `UPDATE batches SET status = ?, output_file_id = ?, error_file_id = ?,
  finalizing_at = ?, completed_at = ?, cancelled_at = ?, expired_at = ?
  WHERE id = ? AND status IN ('in_progress', 'cancelling')`;
export const EXPIRED_FILES = 'SELECT id FROM batch_files WHERE expires_at <= ? LIMIT 100';
export const DELETE_FILE_BY_ID = 'DELETE FROM batch_files WHERE id = ?';
export const EXPIRED_BATCHES = 'SELECT id FROM batches WHERE created_at <= ? LIMIT 100';
export const DELETE_BATCH = 'DELETE FROM batches WHERE id = ?';

/** How many item rows one INSERT takes (7 values each stays far below both engines' bounds). */
export const ITEMS_PER_INSERT = 200;

export function itemValues(
  batchId: string,
  item: { line: number; customId: string; ledgerId: string; body: string },
) {
  return [batchId, item.line, item.customId, item.ledgerId, item.body, 'pending'];
}

export function fileValues(file: BatchFileRecord): (string | number | null)[] {
  return [
    file.id,
    file.app,
    file.purpose,
    file.filename,
    file.bytes,
    file.lines,
    file.status,
    file.batchId,
    file.createdAt,
    file.expiresAt,
  ];
}

export function batchValues(batch: NewBatch): (string | number | null)[] {
  return [
    batch.id,
    batch.app,
    batch.flavor,
    batch.endpoint,
    batch.inputFileId,
    batch.completionWindow,
    batch.metadata === null ? null : JSON.stringify(batch.metadata),
    batch.total,
    batch.createdAt,
    batch.expiresAt,
  ];
}

type Row = Record<string, unknown>;

const numberOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
const stringOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

export function toFile(row: Row): BatchFileRecord {
  return {
    id: String(row.id),
    app: String(row.app),
    purpose: row.purpose as BatchFileRecord['purpose'],
    filename: String(row.filename),
    bytes: Number(row.bytes),
    lines: Number(row.lines),
    status: row.status as BatchFileRecord['status'],
    batchId: stringOrNull(row.batch_id),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export const NO_COUNTS: ItemCounts = Object.freeze({
  pending: 0,
  running: 0,
  succeeded: 0,
  errored: 0,
  canceled: 0,
  expired: 0,
});

export function toCounts(rows: readonly Row[]): ItemCounts {
  const counts: ItemCounts = { ...NO_COUNTS };
  for (const row of rows) counts[row.state as ItemState] = Number(row.n);
  return counts;
}

export function toBatch(row: Row, counts: ItemCounts): BatchRecord {
  return {
    id: String(row.id),
    app: String(row.app),
    flavor: row.flavor as BatchRecord['flavor'],
    endpoint: String(row.endpoint),
    inputFileId: stringOrNull(row.input_file_id),
    completionWindow: String(row.completion_window),
    metadata: row.metadata === null ? null : (JSON.parse(String(row.metadata)) as Record<string, string>),
    status: row.status as BatchRecord['status'],
    total: Number(row.total),
    outputFileId: stringOrNull(row.output_file_id),
    errorFileId: stringOrNull(row.error_file_id),
    createdAt: Number(row.created_at),
    inProgressAt: numberOrNull(row.in_progress_at),
    expiresAt: Number(row.expires_at),
    finalizingAt: numberOrNull(row.finalizing_at),
    completedAt: numberOrNull(row.completed_at),
    failedAt: numberOrNull(row.failed_at),
    expiredAt: numberOrNull(row.expired_at),
    cancellingAt: numberOrNull(row.cancelling_at),
    cancelledAt: numberOrNull(row.cancelled_at),
    errors: stringOrNull(row.errors),
    counts,
  };
}

export function toClaimed(row: Row): ClaimedItem {
  return {
    batchId: String(row.batch_id),
    app: String(row.app),
    flavor: row.flavor as ClaimedItem['flavor'],
    endpoint: String(row.endpoint),
    line: Number(row.line),
    customId: String(row.custom_id),
    ledgerId: String(row.ledger_id),
    body: String(row.body),
    leaseToken: String(row.lease_token),
    tries: Number(row.tries),
  };
}

export function toResult(row: Row): BatchResultRow {
  return {
    line: Number(row.line),
    customId: String(row.custom_id),
    ledgerId: String(row.ledger_id),
    state: row.state as ItemState,
    statusCode: numberOrNull(row.status_code),
    requestId: stringOrNull(row.request_id),
    response: stringOrNull(row.response),
  };
}

/** The times a close sets: finalizing at once, and the one of its status. */
export function closeTimes(status: 'completed' | 'cancelled' | 'expired', now: number) {
  return {
    finalizingAt: now,
    completedAt: status === 'completed' ? now : null,
    cancelledAt: status === 'cancelled' ? now : null,
    expiredAt: status === 'expired' ? now : null,
  };
}
