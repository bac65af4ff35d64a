import { randomUUID } from 'node:crypto';
import type { BatchSettings } from '../../config/batch-settings.ts';
import type { ProviderKind } from '../../config/config-types.ts';
import type { Logger } from '../../platform/logger.ts';
import type { UpstreamBatch, UpstreamChange } from '../../storage/upstream-batch-store.ts';
import { type VendorBatchApi, VendorRefusal, type VendorRequest, type VendorResult } from './vendor-api.ts';
import type { VendorRoute } from './vendor-plan.ts';
import { applyResults, RESULTS_PER_ROUND, type ResultDeps } from './vendor-results.ts';

export interface VendorDeps extends ResultDeps {
  settings: BatchSettings;
  route: VendorRoute;
  /** The slot's kind and its batch API. */
  apiFor: (slot: string) => { kind: ProviderKind; api: VendorBatchApi };
  logger: Logger;
}

/** Upstream batches one instance looks at per round. */
const PER_ROUND = 4;
/** Items read per query while a submission is built. */
const ITEMS_PER_READ = 1000;
/** How soon a round that failed (the vendor or the database away) is tried again. */
const RETRY_MS = 30_000;

/**
 * Submits batches to their vendor's batch API and polls them (CONTRACT 6.7; decision 0030). Each
 * upstream batch is leased from the store for a round (renewed while it lasts), so of several
 * instances one works on it at a time. A submission is marked `submitting` before it is sent: a
 * round that finds that mark (its instance died mid-send) looks the batch up at the vendor before
 * sending again, so a batch is submitted once. Polls back off from `vendorPollMs` to
 * `vendorPollMaxMs`. A cancel here is forwarded. Once the vendor's batch ends, its results are
 * mapped back to their `custom_id`s (vendor-results.ts), what the vendor never answered ends
 * `canceled` or `expired`, and the batch runner closes the batch as it closes its own.
 */
export class VendorBatches {
  readonly #deps: VendorDeps;
  readonly #owner = `vendor-${randomUUID()}`;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopping = false;
  #failing = false;

  constructor(deps: VendorDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#schedule(0);
  }

  /**
   * Takes no more rounds and waits (at most `waitMs`) for the one under way; a round cut short
   * is repeated by whichever instance claims the batch after its lease, as after a crash.
   */
  async stop(waitMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref());
    await Promise.race([this.#round, timeout]);
  }

  #schedule(delayMs: number): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(() => {
      this.#round = this.#tick().finally(() => this.#schedule(this.#deps.settings.pollIntervalMs));
    }, delayMs).unref();
  }

  async #tick(): Promise<void> {
    const deps = this.#deps;
    const leaseMs = deps.settings.leaseSeconds * 1000;
    try {
      const claimed = await deps.store.claim(this.#owner, deps.clock.now(), leaseMs, PER_ROUND);
      for (const upstream of claimed) {
        if (this.#stopping) break;
        const renew = setInterval(
          () => void deps.store.renew(upstream.leaseToken, deps.clock.now() + leaseMs).catch(() => {}),
          Math.max(250, leaseMs / 3),
        ).unref();
        try {
          await this.#step(upstream);
        } catch (error) {
          deps.logger.warn(
            { err: error, batch: upstream.batch.id },
            'vendor batch: a round failed; retrying',
          );
          await deps.store.update(upstream.batch.id, upstream.leaseToken, {
            next: deps.clock.now() + RETRY_MS,
          });
        } finally {
          clearInterval(renew);
        }
      }
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) deps.logger.warn({ err: error }, 'vendor batches: the store failed; retrying');
      this.#failing = true;
    }
  }

  async #step(upstream: UpstreamBatch): Promise<void> {
    if (upstream.state === 'polling') return this.#poll(upstream);
    return this.#submit(upstream);
  }

  async #submit(upstream: UpstreamBatch): Promise<void> {
    const deps = this.#deps;
    const { batch } = upstream;
    const { api } = deps.apiFor(upstream.slot);
    const now = deps.clock.now();
    if (upstream.state === 'submitting' && upstream.submittingAt !== null) {
      // Cut short by a crash: the vendor may have it already.
      const found = await api.find(batch.id, batch.total, upstream.submittingAt);
      if (found !== undefined) return void (await this.#update(upstream, this.#polling(found, 0)));
      if (batch.status === 'cancelling') return this.#end(upstream, 'canceled');
    } else if (batch.status === 'cancelling') {
      return this.#end(upstream, 'canceled');
    }
    // Not while the app is refused (a budget spent, a window full): the batch waits for the window.
    const wait = await this.#refusedFor(batch.app);
    if (wait > 0) return void (await this.#update(upstream, { next: now + wait }));
    const marked = { state: 'submitting' as const, submittingAt: now, next: now };
    if (!(await deps.store.update(batch.id, upstream.leaseToken, marked, false))) return;
    const requests = await this.#requests(upstream);
    let upstreamId: string;
    try {
      upstreamId = await api.submit(batch.id, batch.endpoint, requests, {
        fileId: upstream.fileId,
        onFile: async (fileId) => {
          if (!(await deps.store.update(batch.id, upstream.leaseToken, { fileId, next: now }, false)))
            throw new Error('the batch was cancelled while it was submitted');
        },
      });
    } catch (error) {
      if (!(error instanceof VendorRefusal)) throw error;
      // The vendor refused the batch as a whole (a file or an input count past its bounds, a key
      // without batch access): the gateway runs its requests instead, at the live price.
      deps.logger.warn(
        { batch: batch.id, status: error.status },
        'vendor batch: the vendor refused the submission; the gateway runs the requests',
      );
      await deps.store.unroute(batch.id, upstream.leaseToken, deps.clock.now());
      return;
    }
    await this.#update(upstream, this.#polling(upstreamId, 0));
  }

  async #poll(upstream: UpstreamBatch): Promise<void> {
    const deps = this.#deps;
    const { batch } = upstream;
    const upstreamId = upstream.upstreamId as string;
    const { api, kind } = deps.apiFor(upstream.slot);
    let cancelSent = upstream.cancelSent;
    if (batch.status === 'cancelling' && !cancelSent) {
      await api.cancel(upstreamId);
      cancelSent = true;
    }
    const poll = await api.poll(upstreamId);
    if (!poll.ended) {
      const polls = upstream.polls + 1;
      return void (await this.#update(upstream, { ...this.#polling(upstreamId, polls), cancelSent }));
    }
    const now = deps.clock.now();
    if (poll.outcome === 'failed') {
      const body = JSON.stringify({
        error: {
          message: `the vendor failed the batch: ${poll.errors ?? '[]'}`,
          type: 'server_error',
          param: null,
          code: 'vendor_batch_failed',
        },
      });
      await deps.store.endRest(
        batch.id,
        'errored',
        { state: 'errored', statusCode: 502, requestId: '', response: body },
        now,
      );
    } else {
      let round: VendorResult[] = [];
      const on = { batch, slot: upstream.slot, kind };
      await api.results(upstreamId, async (result) => {
        round.push(result);
        if (round.length < RESULTS_PER_ROUND) return;
        await applyResults(deps, on, round);
        round = [];
      });
      await applyResults(deps, on, round);
      // What the vendor returned nothing for never ran.
      await deps.store.endRest(
        batch.id,
        poll.outcome === 'expired' ? 'expired' : 'canceled',
        null,
        deps.clock.now(),
      );
    }
    await this.#update(upstream, { state: 'done', cancelSent, next: deps.clock.now() });
  }

  /** Every request of the batch, its model the vendor's own name. */
  async #requests(upstream: UpstreamBatch): Promise<VendorRequest[]> {
    const { store, route } = this.#deps;
    const requests: VendorRequest[] = [];
    for (let after = 0; ; ) {
      const items = await store.items(upstream.batch.id, after, ITEMS_PER_READ);
      for (const item of items) {
        const body = JSON.parse(item.body) as Record<string, unknown>;
        if (typeof body.model === 'string')
          body.model = route.upstreamModel(upstream.batch.endpoint, body.model);
        requests.push({ customId: item.customId, body });
      }
      if (items.length < ITEMS_PER_READ) return requests;
      after = (items.at(-1) as { line: number }).line;
    }
  }

  /** The wait (ms) while the app's limits refuse it a request now; 0 when they admit one. */
  async #refusedFor(app: string): Promise<number> {
    try {
      const admission = await this.#deps.limiter.admit(app, { tokens: 0, costUsd: 0 });
      await admission.settle({ tokens: 0, costUsd: 0 });
      return 0;
    } catch (error) {
      const details = (error as { details?: { retryAfterSeconds?: unknown } }).details;
      const retryAfter = Number(details?.retryAfterSeconds);
      return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 60_000;
    }
  }

  #polling(upstreamId: string, polls: number): UpstreamChange {
    const { vendorPollMs, vendorPollMaxMs } = this.#deps.settings;
    const wait = Math.min(vendorPollMs * 2 ** Math.min(polls, 20), vendorPollMaxMs);
    return { state: 'polling', upstreamId, polls, next: this.#deps.clock.now() + wait };
  }

  async #end(upstream: UpstreamBatch, state: 'canceled'): Promise<void> {
    await this.#deps.store.endRest(upstream.batch.id, state, null, this.#deps.clock.now());
    await this.#update(upstream, { state: 'done', next: this.#deps.clock.now() });
  }

  async #update(upstream: UpstreamBatch, change: UpstreamChange): Promise<boolean> {
    return this.#deps.store.update(upstream.batch.id, upstream.leaseToken, change);
  }
}
