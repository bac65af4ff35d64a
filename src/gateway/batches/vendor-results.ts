import type { ModelPrice, ProviderKind } from '../../config/config-types.ts';
import type { Clock } from '../../platform/clock.ts';
import type { BatchRecord } from '../../storage/batch-store.ts';
import type { UsageRecord } from '../../storage/ports.ts';
import type { UpstreamBatchStore, UpstreamItem } from '../../storage/upstream-batch-store.ts';
import { priceUsage } from '../domain/pricing.ts';
import { splitCacheTokens } from '../domain/reported-usage.ts';
import type { AppLimiter } from '../limits/app-limiter.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { VendorResult } from './vendor-api.ts';

/** What mapping a vendor's results back needs. */
export interface ResultDeps {
  store: UpstreamBatchStore;
  clock: Clock;
  priceBook: PriceBook;
  /** Counts each answered request against the app's (and team's) token limits and budgets. */
  limiter: Pick<AppLimiter, 'admit'>;
  record: (row: UsageRecord) => void;
  /** Resolves once the ledger holds every row recorded before the call. */
  flushLedger: () => Promise<void>;
  teamOf: (app: string) => string | undefined;
}

/** The slot, its kind and the batch, for every result of one upstream batch. */
export interface ResultBatch {
  batch: BatchRecord;
  slot: string;
  kind: ProviderKind;
}

/** Results mapped per round: their rows are flushed together, then their items completed. */
export const RESULTS_PER_ROUND = 200;

/**
 * The price of a request sent through a vendor's batch API (CONTRACT 6.7): the price data's batch
 * rate, and half the live rate where it has none, which is every model today (the price data of
 * @pydantic/genai-prices has no batch rates; OpenAI and Anthropic both sell batches at half).
 */
export function batchPrice(live: ModelPrice): ModelPrice {
  const half = (rate: number | undefined) => (rate === undefined ? undefined : rate / 2);
  const price: ModelPrice = { inputPerMTok: live.inputPerMTok / 2, outputPerMTok: live.outputPerMTok / 2 };
  const read = half(live.cacheReadPerMTok);
  const write = half(live.cacheWritePerMTok);
  const write1h = half(live.cacheWrite1hPerMTok);
  if (read !== undefined) price.cacheReadPerMTok = read;
  if (write !== undefined) price.cacheWritePerMTok = write;
  if (write1h !== undefined) price.cacheWrite1hPerMTok = write1h;
  return price;
}

/**
 * Maps one round of a vendor's results to their items: each answered request's ledger row first
 * (its id fixed when the batch was made, so a round repeated after a crash adds none), then its
 * result, only once the row is in the ledger. An item no longer pending (mapped by an earlier
 * round, or cancelled here first) is skipped. Results that never ran (`canceled`, `expired`) are
 * left to the batch's end. Throws when rows do not land: the round is repeated later.
 */
export async function applyResults(
  deps: ResultDeps,
  on: ResultBatch,
  results: readonly VendorResult[],
): Promise<void> {
  const answered: { item: UpstreamItem; result: VendorResult }[] = [];
  for (const result of results) {
    if (result.state !== 'succeeded' && result.state !== 'errored') continue;
    const item = await deps.store.item(on.batch.id, result.customId);
    if (item === undefined || item.state !== 'pending') continue;
    answered.push({ item, result });
  }
  if (answered.length === 0) return;
  for (const { item, result } of answered) {
    const row = ledgerRow(deps, on, item, result);
    deps.record(row);
    await countAgainstLimits(deps, on.batch.app, row);
  }
  for (let round = 0; round < 8; round++) {
    await deps.flushLedger();
    let unrecorded = 0;
    for (const { item, result } of answered) {
      if (item.state !== 'pending') continue;
      const stored = {
        state: result.state as 'succeeded' | 'errored',
        statusCode: result.statusCode,
        requestId: result.requestId,
        response: result.body ?? '{}',
      };
      const outcome = await deps.store.complete(on.batch.id, item.line, stored, deps.clock.now(), true);
      if (outcome === 'unrecorded') unrecorded++;
      else item.state = result.state;
    }
    if (unrecorded === 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** round, 5000)));
  }
  throw new Error('the ledger did not take the rows of a vendor batch; the results are mapped again later');
}

function ledgerRow(deps: ResultDeps, on: ResultBatch, item: UpstreamItem, result: VendorResult): UsageRecord {
  const { batch } = on;
  const requested = (JSON.parse(item.body) as { model?: unknown }).model;
  const model = result.model ?? (typeof requested === 'string' ? requested : 'unknown');
  const usage = result.usage;
  const resolved = deps.priceBook.resolve(on.kind, model);
  const costUsd = usage === undefined ? 0 : priceUsage(usage, batchPrice(resolved.price));
  const cache =
    usage === undefined
      ? { cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 }
      : splitCacheTokens(usage);
  const ok = result.state === 'succeeded';
  const tokensIn = usage?.inputTokens ?? 0;
  const tokensOut = usage?.outputTokens ?? 0;
  const attempt = {
    attempt: 0,
    provider: on.slot,
    deployment: null,
    model,
    tokensIn,
    tokensOut,
    usageEstimated: false,
    costUsd,
    latencyMs: 0,
    outcome: ok ? 'ok' : 'vendor_batch_error',
    upstreamStatus: result.statusCode,
    ...cache,
  };
  return {
    id: item.ledgerId,
    requestId: result.requestId === '' ? item.ledgerId : result.requestId,
    app: batch.app,
    operation: batch.endpoint === '/v1/embeddings' ? 'embed' : 'chat',
    frontDoor:
      batch.flavor === 'anthropic'
        ? 'anthropic'
        : batch.endpoint === '/v1/responses'
          ? 'responses'
          : 'openai',
    task: null,
    provider: on.slot,
    model,
    tokensIn,
    tokensOut,
    usageEstimated: false,
    costUsd,
    // Where a live row names its price's source: the same, its batch rate taken from it.
    priceSource: resolved.source === 'none' ? 'none' : `${resolved.source}:batch`,
    latencyMs: Math.max(0, deps.clock.now() - batch.createdAt),
    upstreamFirstByteMs: null,
    upstreamMs: null,
    status: result.statusCode,
    errorCode: ok ? null : 'vendor_batch_error',
    createdAt: deps.clock.now(),
    ...cache,
    deployment: null,
    cacheHit: false,
    costSavedUsd: 0,
    mcpServer: null,
    mcpTool: null,
    team: deps.teamOf(batch.app) ?? null,
    guardrails: null,
    batchId: batch.id,
    attempts: [attempt],
  };
}

/**
 * The vendor already ran the request: its tokens and cost are added to the app's windows (never
 * refused: nothing can be held back now). A limiter that refuses even that (a concurrency cap
 * full) leaves the row as the only count.
 */
async function countAgainstLimits(deps: ResultDeps, app: string, row: UsageRecord): Promise<void> {
  try {
    const admission = await deps.limiter.admit(app, { tokens: 0, costUsd: 0 });
    await admission.settle({ tokens: row.tokensIn + row.tokensOut, costUsd: row.costUsd });
  } catch {
    // Over a limit already: the vendor's answer stands; the next requests of the app are refused.
  }
}
