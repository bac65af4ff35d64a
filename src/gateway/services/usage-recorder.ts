import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../platform/logger.ts';
import type { UsageLedger, UsageRecord } from '../../storage/ports.ts';

export interface UsageRecorderOptions {
  /** Records written per batch. */
  batchSize?: number;
  /** Longest time a record waits before its batch is written. */
  flushIntervalMs?: number;
  /** Past this many waiting records, new requests wait (back-pressure) instead of rows being dropped. */
  highWaterMark?: number;
  /** Where records go when the ledger still fails at shutdown, so none is lost. */
  spillDir?: string;
}

/**
 * Takes usage records off the hot path: the request only pushes to an array; batches are written
 * in the background, retried on failure, and flushed on shutdown. Nothing is dropped: past the
 * high-water mark `whenWritable()` makes new requests wait for the ledger to catch up.
 */
export class UsageRecorder {
  readonly #ledger: UsageLedger;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #highWaterMark: number;
  readonly #spillDir: string | undefined;
  #buffer: UsageRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #flushing: Promise<void> | undefined;
  #waiters: (() => void)[] = [];
  #failures = 0;

  constructor(ledger: UsageLedger, logger: Logger, options: UsageRecorderOptions = {}) {
    this.#ledger = ledger;
    this.#logger = logger;
    // 50: when the embedded ledger wrote on this thread, a batch of 50 held the event loop for
    // about 0.5 ms where 500 held it for 4-5 ms, and below 50 the commits cost more than the
    // pauses saved. Its writer thread now leaves this thread ~0.15 ms per batch (building and
    // copying the rows); 250 and 500 gained nothing measurable in `npm run bench`.
    this.#batchSize = options.batchSize ?? 50;
    this.#flushIntervalMs = options.flushIntervalMs ?? 200;
    this.#highWaterMark = options.highWaterMark ?? 20_000;
    this.#spillDir = options.spillDir;
  }

  record(record: UsageRecord): void {
    this.#buffer.push(record);
    if (this.#buffer.length >= this.#batchSize && this.#immediate === undefined) {
      // A full batch is written on the next turn of the event loop, never inside the request.
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        void this.#flushSoon();
      });
    } else {
      this.#timer ??= setTimeout(() => void this.#flushSoon(), this.#flushIntervalMs);
    }
  }

  get pending(): number {
    return this.#buffer.length;
  }

  /** Resolves at once unless the backlog is past the high-water mark. */
  whenWritable(): Promise<void> | undefined {
    if (this.#buffer.length < this.#highWaterMark) return undefined;
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Writes everything waiting; at shutdown, spills what the ledger refuses to a JSON-lines file. */
  async flush(options: { final?: boolean } = {}): Promise<void> {
    clearTimeout(this.#timer);
    clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
    while (this.#flushing !== undefined) await this.#flushing;
    for (let round = 0; this.#buffer.length > 0; round++) {
      const ok = await this.#writeBatch();
      if (!ok && (options.final !== true || round >= 2)) break;
    }
    if (options.final === true && this.#buffer.length > 0) this.#spill();
  }

  async #flushSoon(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#flushing !== undefined) return;
    this.#flushing = (async () => {
      while (this.#buffer.length > 0) {
        if (!(await this.#writeBatch())) break;
        // Let waiting requests run between batches: a synchronous ledger would otherwise
        // write the whole backlog in one go (awaiting it only yields to microtasks).
        if (this.#buffer.length > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await this.#flushing;
    this.#flushing = undefined;
    if (this.#buffer.length > 0) {
      // The ledger failed: try again later, backing off up to 5 s.
      const backoff = Math.min(5_000, 100 * 2 ** Math.min(this.#failures, 6));
      this.#timer = setTimeout(() => void this.#flushSoon(), backoff);
    }
  }

  async #writeBatch(): Promise<boolean> {
    const batch = this.#buffer.slice(0, this.#batchSize);
    try {
      await this.#ledger.appendBatch(batch);
    } catch (error) {
      this.#failures++;
      this.#logger.error(
        { err: error, pending: this.#buffer.length },
        'usage ledger write failed; will retry',
      );
      return false;
    }
    this.#failures = 0;
    this.#buffer = this.#buffer.slice(batch.length);
    if (this.#buffer.length < this.#highWaterMark && this.#waiters.length > 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    }
    return true;
  }

  #spill(): void {
    if (this.#spillDir === undefined) {
      this.#logger.error(
        { lost: this.#buffer.length },
        'usage records could not be written and no spill directory is set',
      );
      return;
    }
    mkdirSync(this.#spillDir, { recursive: true });
    const file = join(this.#spillDir, `usage-spill-${Date.now()}.jsonl`);
    appendFileSync(file, `${this.#buffer.map((r) => JSON.stringify(r)).join('\n')}\n`);
    this.#logger.error(
      { file, records: this.#buffer.length },
      'usage ledger unavailable at shutdown; records spilled to file',
    );
    this.#buffer = [];
  }
}
