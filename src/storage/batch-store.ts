import type { UpstreamBatchStore } from './upstream-batch-store.ts';

/**
 * The BatchStore port (CONTRACT 6.7, migration 010): uploaded files, batches and their requests,
 * shared by every instance on the database. Items are handed out under a lease, so several
 * instances share a batch without running a request twice, and an instance killed mid-request
 * leaves its items to be claimed again once their lease ends.
 */

/** `batch`: uploaded; `batch_output` / `batch_error`: a batch's results, made from its items when read. */
export type BatchFilePurpose = 'batch' | 'batch_output' | 'batch_error';

export interface BatchFileRecord {
  id: string;
  app: string;
  purpose: BatchFilePurpose;
  filename: string;
  bytes: number;
  /** Lines (requests) of an uploaded file; result lines of an output or error file. */
  lines: number;
  /** `uploading` while its bytes arrive (never found then), `processed` once whole and valid. */
  status: 'uploading' | 'processed';
  /** For an output or error file: the batch whose items it is made of. */
  batchId: string | null;
  createdAt: number;
  expiresAt: number;
}

/** OpenAI's Batch API or Anthropic's Message Batches: which door made it, and reads it. */
export type BatchFlavor = 'openai' | 'anthropic';

export type BatchStatus =
  | 'validating'
  | 'in_progress'
  | 'cancelling'
  | 'cancelled'
  | 'completed'
  | 'failed'
  | 'expired';

/** `pending`: due at `notBefore`; `running`: leased; the rest are final. */
export type ItemState = 'pending' | 'running' | 'succeeded' | 'errored' | 'canceled' | 'expired';

export type ItemCounts = Record<ItemState, number>;

export interface BatchRecord {
  id: string;
  app: string;
  flavor: BatchFlavor;
  /** The path every request goes to: `/v1/chat/completions`, `/v1/embeddings`, `/v1/responses`, `/v1/messages`. */
  endpoint: string;
  inputFileId: string | null;
  completionWindow: string;
  metadata: Record<string, string> | null;
  status: BatchStatus;
  total: number;
  outputFileId: string | null;
  errorFileId: string | null;
  createdAt: number;
  inProgressAt: number | null;
  expiresAt: number;
  finalizingAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  /** Why a batch failed (OpenAI's `errors.data`), as JSON. */
  errors: string | null;
  counts: ItemCounts;
}

/** A page of `GET /v1/files`. */
export interface FilePage {
  limit: number;
  order: 'asc' | 'desc';
  purpose?: BatchFilePurpose | undefined;
  after?: string | undefined;
}

/** A batch as made: every time but `createdAt` and `expiresAt` still null, no counts. */
export type NewBatch = Pick<
  BatchRecord,
  | 'id'
  | 'app'
  | 'flavor'
  | 'endpoint'
  | 'inputFileId'
  | 'completionWindow'
  | 'metadata'
  | 'total'
  | 'createdAt'
  | 'expiresAt'
>;

export interface NewBatchItem {
  /** 1-based line of the input file (or index + 1 of an Anthropic batch's requests). */
  line: number;
  customId: string;
  /** The id its ledger row will have, whichever instance runs it and however often. */
  ledgerId: string;
  /** The request body, JSON. */
  body: string;
}

export interface ClaimedItem extends NewBatchItem {
  batchId: string;
  app: string;
  flavor: BatchFlavor;
  endpoint: string;
  /** Names this claim: only its holder may complete or defer the item. */
  leaseToken: string;
  /** Claims so far, this one included. */
  tries: number;
}

export interface ItemResult {
  state: 'succeeded' | 'errored';
  statusCode: number;
  requestId: string;
  /** The answer's body, JSON (an error envelope for `errored`). */
  response: string;
}

/** `done`; `lost`: the lease had passed to another claim; `unrecorded`: its ledger row is not stored yet. */
export type CompleteOutcome = 'done' | 'lost' | 'unrecorded';

export interface BatchResultRow {
  line: number;
  customId: string;
  ledgerId: string;
  state: ItemState;
  statusCode: number | null;
  requestId: string | null;
  response: string | null;
}

export interface BatchClose {
  status: 'completed' | 'cancelled' | 'expired';
  /** Output and error files to make with it (null: none of that kind). */
  output: BatchFileRecord | null;
  error: BatchFileRecord | null;
}

export interface BatchStore {
  /** Batches a vendor's batch API runs (migration 013). */
  readonly upstream: UpstreamBatchStore;
  /** Starts a file in `uploading`; its chunks follow, then `finishFile`. */
  createFile(file: BatchFileRecord): Promise<void>;
  appendChunk(fileId: string, seq: number, data: Uint8Array): Promise<void>;
  finishFile(fileId: string, bytes: number, lines: number): Promise<void>;
  /** The app's processed, unexpired file of that id. */
  findFile(app: string, id: string, now: number): Promise<BatchFileRecord | undefined>;
  /**
   * The app's processed, unexpired files, newest first (`asc`: oldest first), of `purpose` when
   * given, after the file `after` when given.
   */
  listFiles(app: string, now: number, page: FilePage): Promise<BatchFileRecord[]>;
  /** Chunks `fromSeq` on, at most `limit`, in order. */
  readChunks(fileId: string, fromSeq: number, limit: number): Promise<Uint8Array[]>;
  /** Whether the app had it (its chunks go too). */
  deleteFile(app: string, id: string): Promise<boolean>;

  /** Makes a batch in `validating`: its items are added next, then `startBatch`. */
  createBatch(batch: NewBatch): Promise<void>;
  addItems(batchId: string, items: readonly NewBatchItem[]): Promise<void>;
  /** `validating` to `in_progress`: its items may be claimed from now on. */
  startBatch(batchId: string, now: number): Promise<void>;
  /** Ends a batch that never started (`validating` to `failed`), its items removed. */
  failBatch(batchId: string, errors: string, now: number): Promise<void>;
  getBatch(app: string, id: string): Promise<BatchRecord | undefined>;
  /** The app's batches of a flavor, newest first, those older than `after`'s only when given. */
  listBatches(app: string, flavor: BatchFlavor, limit: number, after?: string): Promise<BatchRecord[]>;
  /** `in_progress` to `cancelling`, its pending items `canceled`; undefined for an unknown batch. */
  cancelBatch(app: string, id: string, now: number): Promise<BatchRecord | undefined>;

  /**
   * Leases up to `limit` due items of running batches to `owner` until `now + leaseMs`: pending
   * ones and those whose lease ran out (their instance died). Two claims never get one item.
   */
  claimItems(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedItem[]>;
  /** Extends every lease `owner` holds to `until`. */
  renewLeases(owner: string, until: number): Promise<void>;
  /**
   * Stores the result of the claim `leaseToken`, once: `lost` when the claim no longer holds the
   * item; with `needsLedgerRow`, `unrecorded` (nothing stored) while its ledger row is missing.
   */
  completeItem(
    item: ClaimedItem,
    result: ItemResult,
    now: number,
    needsLedgerRow: boolean,
  ): Promise<CompleteOutcome>;
  /** Gives the item back, due at `notBefore` (a limit's next window). */
  deferItem(item: ClaimedItem, notBefore: number): Promise<void>;
  /** Batches still open (`in_progress`, `cancelling`) with nothing pending and nothing leased past `now`, or past their expiry. */
  batchesToClose(now: number, limit: number): Promise<BatchRecord[]>;
  /** The batch's results in line order, lines after `afterLine`. */
  readResults(batchId: string, afterLine: number, limit: number): Promise<BatchResultRow[]>;
  /**
   * Closes an open batch once: items still pending (or leased by a dead instance) end `canceled`
   * or `expired`, the batch takes `close.status` and its result files. False when another
   * instance closed it first.
   */
  closeBatch(batchId: string, close: BatchClose, now: number): Promise<boolean>;
  /** Deletes files (with chunks) and batches (with items) past their expiry; how many rows went. */
  deleteExpired(now: number, batchRetentionMs: number): Promise<number>;
}
