import type { BatchRecord, CompleteOutcome, ItemResult } from './batch-store.ts';

/**
 * The part of the BatchStore (migration 013) for batches a vendor's own batch API runs (CONTRACT
 * 6.7; docs/batches.md): which slot runs it, how far its submission got, the vendor's ids, and a
 * lease so that one instance at a time submits or polls it. Its items stay `pending` (the batch
 * runner never claims them) until the vendor's result for their `custom_id` is mapped back.
 */

/**
 * `submit`: not sent; `submitting`: a submission began (after a crash, it is looked for upstream
 * before being sent again); `polling`: the vendor has it (`upstreamId`); `done`: results mapped.
 */
export type UpstreamState = 'submit' | 'submitting' | 'polling' | 'done';

export interface UpstreamBatch {
  batch: BatchRecord;
  slot: string;
  state: UpstreamState;
  upstreamId: string | null;
  /** OpenAI's uploaded input file. */
  fileId: string | null;
  /** The client's cancel was forwarded upstream. */
  cancelSent: boolean;
  polls: number;
  /** Epoch ms a submission began (`submitting`), for finding it upstream after a crash. */
  submittingAt: number | null;
  /** Names this claim: only its holder may change the batch's upstream state. */
  leaseToken: string;
}

/** What one round of submitting or polling changes; the lease is released with it. */
export interface UpstreamChange {
  state?: UpstreamState;
  upstreamId?: string;
  fileId?: string;
  cancelSent?: boolean;
  polls?: number;
  submittingAt?: number;
  /** Epoch ms it is next looked at. */
  next: number;
}

/** A request of an upstream batch, found by its `custom_id` (unique in its batch). */
export interface UpstreamItem {
  line: number;
  customId: string;
  ledgerId: string;
  body: string;
  state: string;
}

export interface UpstreamBatchStore {
  /** Hands a `validating` batch to a slot's batch API: its items are never claimed by the runner. */
  route(batchId: string, slot: string): Promise<void>;
  /**
   * Leases up to `limit` upstream batches due at `now` (open, not `done`, lease free or past) to
   * `owner` until `now + leaseMs`. Two claims never get one batch.
   */
  claim(owner: string, now: number, leaseMs: number, limit: number): Promise<UpstreamBatch[]>;
  /**
   * Applies a round's change and releases the lease (`release` false keeps it: a submission
   * marked `submitting` before it is sent); false when the claim no longer held it.
   */
  update(batchId: string, leaseToken: string, change: UpstreamChange, release?: boolean): Promise<boolean>;
  /**
   * Hands the batch back to the gateway's runner (the vendor refused it): its pending items are
   * claimable from now on, or `canceled` when the batch was cancelled meanwhile. False when the
   * claim no longer held it.
   */
  unroute(batchId: string, leaseToken: string, now: number): Promise<boolean>;
  /** Extends the lease of the claim `leaseToken` to `until` (a long submission or download). */
  renew(leaseToken: string, until: number): Promise<void>;
  /** The batch's items in line order, lines after `afterLine` (for the submission). */
  items(batchId: string, afterLine: number, limit: number): Promise<UpstreamItem[]>;
  item(batchId: string, customId: string): Promise<UpstreamItem | undefined>;
  /**
   * Stores a vendor's result for a pending item, once: `lost` when it is no longer pending (a
   * result already mapped, or cancelled here first); with `needsLedgerRow`, `unrecorded` while
   * its ledger row is missing.
   */
  complete(
    batchId: string,
    line: number,
    result: ItemResult,
    now: number,
    needsLedgerRow: boolean,
  ): Promise<CompleteOutcome>;
  /** Ends the items the vendor returned nothing for (`canceled`, `expired`, or `errored` with `result`). */
  endRest(
    batchId: string,
    state: 'canceled' | 'expired' | 'errored',
    result: ItemResult | null,
    now: number,
  ): Promise<number>;
}
