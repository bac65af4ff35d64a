import type { ProviderSlot } from '../../../config/config-types.ts';
import type { ApiError } from '../../../platform/errors.ts';
import type { Operation, UsageRecord } from '../../../storage/ports.ts';
import type { RunLabels } from './request-run-labels.ts';

/**
 * What the request's owner and the upstream caller tell the metrics (gateway/observability/
 * gateway-metrics.ts). Absent when metrics are off, so a request then pays one property read.
 */
export interface RunMetrics {
  /** A request finished (answer, error, client gone or stream ended): its ledger record and how it was addressed. */
  finished(record: UsageRecord, labels: RunLabels): void;
  /** A request refused before it was admitted (no route, a limit reached): it leaves no ledger row. */
  refused(
    run: { app: string; operation: Operation; frontDoor: string },
    error: ApiError,
    labels: RunLabels,
  ): void;
  /**
   * A request of an authenticated app answered with an error before any run started (its body
   * malformed, too large or invalid): no ledger row, but counted under its app.
   */
  refusedBeforeRun(app: string, operation: Operation, frontDoor: string, status: number): void;
  /** A deployment (null: a slot without deployments) passed over without a call because its circuit is open. */
  skipped(slot: ProviderSlot, deployment: string | null): void;
}
