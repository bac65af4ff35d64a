import type { BatchSettings } from '../../config/batch-settings.ts';
import type { Clock } from '../../platform/clock.ts';
import type { BatchStore } from '../../storage/batch-store.ts';
import type { ModelCheck } from './batch-lines.ts';
import type { VendorRoute } from './vendor-plan.ts';

/** What the batch routes and the runner share. */
export interface BatchDeps {
  store: BatchStore;
  settings: BatchSettings;
  clock: Clock;
  /** Surface A's public base URL, for Anthropic's `results_url`. */
  publicUrl: string;
  /**
   * Whether an app may use a batch line's model: every line of a file at upload and at batch
   * creation, every request of a Message Batch. Allows every model until per-app allow lists
   * (CONTRACT 6.5, YAML `apps[].models`) exist; then it is their check, and the doors refuse
   * the request again when it runs.
   */
  modelAllowed: ModelCheck;
  /** Which batches a vendor's batch API runs (vendor-plan.ts); absent: the gateway runs them all. */
  vendor?: VendorRoute | undefined;
}

/** Files expire, and batches are deleted, this long after creation. */
export function retentionMs(settings: BatchSettings): number {
  return settings.retentionDays * 86_400_000;
}

/** A list's `limit` query (digits): 20 by default, at least 1, at most `max`. */
export function pageSize(given: string | undefined, max: number): number {
  return given === undefined ? 20 : Math.min(Math.max(Number(given), 1), max);
}
