import { randomUUID } from 'node:crypto';
import type { Logger } from '../../platform/logger.ts';
import type { ClaimedItem, ItemResult } from '../../storage/batch-store.ts';
import { BATCH_TICKET_HEADER, type BatchTickets } from '../http/batch-tickets.ts';
import { type BatchDeps, retentionMs } from './batch-deps.ts';
import { closeReadyBatches } from './close-batches.ts';
import type { LiveTraffic } from './live-traffic.ts';

/** An in-process request through the gateway's own doors (Fastify's inject), and its answer. */
export type Inject = (request: {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  payload: string;
}) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;

export interface RunnerDeps extends BatchDeps {
  inject: Inject;
  tickets: BatchTickets;
  live: LiveTraffic;
  /** Resolves once the ledger holds every row recorded before the call (or a write failed). */
  flushLedger: () => Promise<void>;
  logger: Logger;
}

/** Live traffic counts as present this long after its last request ended. */
const QUIET_MS = 50;
/** How soon a runner held back by live traffic looks again. */
const YIELD_RECHECK_MS = 50;
/** How long a request whose run failed, or whose row did not land, waits before it runs again. */
const FAILED_RETRY_MS = 5_000;
/** How often expired files and old batches are deleted. */
const SWEEP_EVERY_MS = 3_600_000;
/** Times a request refused for lack of room (503) is tried before its refusal is its result. */
const MAX_TRIES = 10;
/** Longest a request waits for a limit's window; longer `Retry-After`s are waited in steps. */
const MAX_WAIT_MS = 3_600_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Runs batch requests in the background (CONTRACT 6.7). Each is claimed from the store under a
 * lease (renewed while it runs), sent through the gateway's own door for its endpoint as its app
 * (`inject` with a one-use ticket), so it meets the same admission, limits, budgets, routing and
 * ledger row as a live request; its result is stored once its ledger row is. At most
 * `batches.concurrency` run at once, `batches.busyConcurrency` while live requests are in flight.
 * A 429 (a limit, a budget) gives the request back until the window its `Retry-After` names,
 * rather than failing it. Every instance runs one; the store's leases share the work.
 */
export class BatchRunner {
  readonly #deps: RunnerDeps;
  readonly #owner = `runner-${randomUUID()}`;
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #renewer: NodeJS.Timeout | undefined;
  #stopping = false;
  #ticking = false;
  /** The last claim found less than it asked for: nothing more to take for now. */
  #drained = false;
  #lastSweepAt = 0;
  #lastCloseAt = 0;
  /** The last look at the room found live traffic keeping the event loop busy. */
  #yielding = false;
  #failing = false;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  start(): void {
    const leaseMs = this.#deps.settings.leaseSeconds * 1000;
    this.#renewer = setInterval(() => this.#renew(leaseMs), Math.max(250, leaseMs / 3)).unref();
    this.#schedule(0);
  }

  /** Takes no more work and waits (at most `waitMs`) for the requests in flight; the rest are taken again after their lease. */
  async stop(waitMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    clearInterval(this.#renewer);
    await Promise.race([Promise.allSettled([...this.#running]), sleep(waitMs)]);
  }

  /**
   * How many more requests may start: `concurrency` while no live request is here; while one
   * is, `busyConcurrency`, and none at all while the event loop is busier than
   * `yieldAboveUtilization` (live traffic first: the batch waits for room).
   */
  #room(): number {
    const { concurrency, busyConcurrency, yieldAboveUtilization } = this.#deps.settings;
    const live = this.#deps.live;
    if (!live.busy(QUIET_MS)) return concurrency - this.#running.size;
    this.#yielding = live.utilization() > yieldAboveUtilization;
    return this.#yielding ? 0 : busyConcurrency - this.#running.size;
  }

  #schedule(delayMs: number): void {
    if (this.#stopping || this.#ticking) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), delayMs).unref();
  }

  async #tick(): Promise<void> {
    this.#ticking = true;
    const deps = this.#deps;
    try {
      const room = this.#room();
      if (room > 0) {
        const now = deps.clock.now();
        const items = await deps.store.claimItems(this.#owner, now, deps.settings.leaseSeconds * 1000, room);
        this.#drained = items.length < room;
        for (const item of items) this.#launch(item);
      }
      // Closing reads each open batch's items: once a poll, or as soon as the work ran out.
      if (this.#drained || deps.clock.now() - this.#lastCloseAt >= deps.settings.pollIntervalMs) {
        this.#lastCloseAt = deps.clock.now();
        await closeReadyBatches(deps);
      }
      if (deps.clock.now() - this.#lastSweepAt >= SWEEP_EVERY_MS) {
        this.#lastSweepAt = deps.clock.now();
        await deps.store.deleteExpired(deps.clock.now(), retentionMs(deps.settings));
      }
      this.#failing = false;
    } catch (error) {
      // Once per outage: the database may be away for a while, and the runner tries again each poll.
      if (!this.#failing) deps.logger.warn({ err: error }, 'batch runner: the store failed; retrying');
      this.#failing = true;
    } finally {
      this.#ticking = false;
    }
    const more = !this.#drained && this.#room() > 0 && !this.#failing;
    // Held back by live traffic: look again soon, not a whole poll later.
    const wait = this.#yielding && !this.#drained ? YIELD_RECHECK_MS : deps.settings.pollIntervalMs;
    this.#schedule(more ? 0 : wait);
  }

  #launch(item: ClaimedItem): void {
    const running = this.#run(item)
      .catch(async (error: unknown) => {
        this.#deps.logger.warn(
          { err: error, batch: item.batchId },
          'batch request failed; it will run again',
        );
        // Given back, or its lease (renewed for every item this runner holds) would never end.
        await this.#giveBack(item, FAILED_RETRY_MS);
      })
      .finally(() => {
        this.#running.delete(running);
        // A finished request makes room, and may have been its batch's last.
        this.#schedule(this.#drained ? 20 : 0);
      });
    this.#running.add(running);
  }

  async #run(item: ClaimedItem): Promise<void> {
    const deps = this.#deps;
    const token = deps.tickets.issue({ app: item.app, batchId: item.batchId, ledgerId: item.ledgerId });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [BATCH_TICKET_HEADER]: token,
    };
    if (item.flavor === 'anthropic') headers['anthropic-version'] = '2023-06-01';
    let answer: Awaited<ReturnType<Inject>>;
    try {
      answer = await deps.inject({ method: 'POST', url: item.endpoint, headers, payload: item.body });
    } finally {
      deps.tickets.drop(token);
    }
    const status = answer.statusCode;
    if (status === 429 || (status === 503 && item.tries < MAX_TRIES)) {
      await deps.store.deferItem(item, deps.clock.now() + waitOf(answer.headers['retry-after'], item.tries));
      return;
    }
    const requestId = answer.headers['x-request-id'];
    await this.#complete(item, {
      state: status >= 200 && status < 300 ? 'succeeded' : 'errored',
      statusCode: status,
      requestId: typeof requestId === 'string' ? requestId : '',
      response: answer.body,
    });
  }

  /**
   * Stores the result once the request's ledger row is in the ledger, so that no request has a
   * result without its row. A refusal before admission (a 400 of validation) leaves no row, as a
   * live one does: its result goes in without. A success whose row does not land (the ledger
   * failing) is given back and runs again later, and its row is never doubled.
   */
  async #complete(item: ClaimedItem, result: ItemResult): Promise<void> {
    const deps = this.#deps;
    for (let round = 0; round < 12; round++) {
      // The run records its row as it closes, just after the answer was handed over.
      await new Promise((resolve) => setImmediate(resolve));
      await deps.flushLedger();
      const outcome = await deps.store.completeItem(item, result, deps.clock.now(), true);
      if (outcome !== 'unrecorded') return;
      if (result.state === 'errored' && round >= 1) {
        await deps.store.completeItem(item, result, deps.clock.now(), false);
        return;
      }
      await sleep(Math.min(50 * 2 ** round, 5000));
    }
    // The row never landed (the ledger failing): run it again later; its row is never doubled.
    await this.#giveBack(item, FAILED_RETRY_MS);
  }

  async #giveBack(item: ClaimedItem, afterMs: number): Promise<void> {
    await this.#deps.store.deferItem(item, this.#deps.clock.now() + afterMs).catch(() => {});
  }

  async #renew(leaseMs: number): Promise<void> {
    if (this.#running.size === 0) return;
    await this.#deps.store.renewLeases(this.#owner, this.#deps.clock.now() + leaseMs).catch(() => {});
  }
}

/** How long a refused request waits: its `Retry-After` (seconds), else a backoff by tries. */
function waitOf(retryAfter: unknown, tries: number): number {
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds > 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
  return Math.min(1000 * 2 ** Math.min(tries, 8), 60_000);
}
