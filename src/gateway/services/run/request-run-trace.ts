import type { ProviderSlot } from '../../../config/config-types.ts';
import type { UsageRecord } from '../../../storage/ports.ts';
import type { FinishReason } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { TraceHeaders } from '../../providers/http/trace-headers.ts';

/**
 * The trace of one request, as the request's owner and the upstream caller see it (the
 * OpenTelemetry side is gateway/observability/tracing/). The request's span is started and
 * ended by the HTTP layer; this adds a child span per upstream call, and the GenAI attributes
 * when the run finishes. Calls of one run are made one after another, so one is open at a time.
 * Undefined when tracing is off.
 */
export interface RunTrace {
  /** Opens the span of one upstream call (to `deployment`, null for a slot of one); answers the headers that carry it upstream. */
  startAttempt(slot: ProviderSlot, model: string, attempt: number, deployment?: string | null): TraceHeaders;
  /** The open call failed (a ProviderError or the client leaving). */
  attemptFailed(error: unknown): void;
  /** The open call answered (a stream: ended); `outcome` is `ok` or `stream_failed`. */
  attemptAnswered(
    usage: ReportedUsage,
    responseModel: string,
    outcome: string,
    finishReason: FinishReason | undefined,
  ): void;
  /** The run finished with this ledger record; `error` undefined for success. */
  finished(record: UsageRecord, error: unknown): void;
}
