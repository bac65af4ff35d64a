import type { Logger } from '../../../platform/logger.ts';
import type { HeldRun, UsageLedger, UsageRecord } from '../../../storage/ports.ts';
import { boundedName } from '../run/attempt-row.ts';
import { RoomWaiters } from './room-waiters.ts';
import { spillRecords } from './spill-records.ts';

export interface UsageRecorderOptions {
  /** Records written per batch. */
  batchSize?: number;
  /** Longest time a record waits before its batch is written. */
  flushIntervalMs?: number;
  /** Past this many waiting records, new requests wait (back-pressure) instead of rows being dropped. */
  highWaterMark?: number;
  /** Longest a request waits past the high-water mark before it is refused with a 503. */
  highWaterWaitMs?: number;
  /** Where records go when the ledger still fails at shutdown, so none is lost. */
  spillDir?: string;
  /**
   * Told of each request as it is admitted (a worker of several tells its primary, which writes
   * the request's row should the worker die before recording it: CONTRACT 6.8).
   */
  onAdmitted?: (run: HeldRun) => void;
}

/** What the recorder reads of an admitted request (a RequestRun). */
export type AdmittedRun = Omit<HeldRun, 'task' | 'createdAt'> & {
  task: string | undefined;
  receivedAt: number;
};

/** Writes tried at shutdown before the rest is spilled to a file. */
const FINAL_ATTEMPTS = 3;
/** Longest pause between retries while the ledger fails. */
const MAX_BACKOFF_MS = 5_000;
/**
 * Longest a read of the ledger waits for this instance's records to be written first. A write to
 * a database cut off by a network partition gets no answer until its connection times out
 * (minutes); the read then goes on, and meets the database's state itself.
 */
const READ_FLUSH_WAIT_MS = 5_000;

/**
 * Takes usage records off the hot path: the request only pushes to an array; batches are written
 * in the background, retried on failure, and flushed on shutdown.
 *
 * One drain loop is the only writer. It takes the front batch out of the buffer and keeps it as
 * `#batch` until the ledger has it: a failed batch stays the front and is written again before
 * anything recorded after it, so records reach the ledger once each and in order. `flush()` and
 * the timers only start or join that loop; two writers taking the same front at once lost whole
 * batches before (about 5% of records under load with `GET /v1/usage` reads).
 *
 * `#recorded` and `#written` count records since start; `#written + pending === #recorded`.
 * A `flush()` waits until `#written` passes the count at its call, so traffic that keeps coming
 * cannot starve it.
 */
export class UsageRecorder {
  readonly #ledger: UsageLedger;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #highWaterMark: number;
  readonly #spillDir: string | undefined;
  readonly #onAdmitted: ((run: HeldRun) => void) | undefined;
  readonly #room: RoomWaiters;
  /** Recorded, not yet taken by the drain loop. */
  #buffer: UsageRecord[] = [];
  /** Taken by the drain loop and not yet in the ledger: the front of the queue. */
  #batch: UsageRecord[] | undefined;
  #recorded = 0;
  #written = 0;
  #draining: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** The pending timer is a retry after a failure: a full batch does not cut the backoff short. */
  #backingOff = false;
  #failures = 0;
  /** Non-final flushes, in the order of their targets. */
  #flushes: { upTo: number; resolve: () => void }[] = [];
  #closing = false;
  #closed = false;

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
    this.#onAdmitted = options.onAdmitted;
    // 10 s: long enough to ride out a slow or restarting database, short enough that a client
    // hears a clear 503 rather than its own timeout when the ledger is down for longer.
    this.#room = new RoomWaiters(options.highWaterWaitMs ?? 10_000, Math.ceil(MAX_BACKOFF_MS / 1000));
  }

  /** A request was admitted: its row will follow through `record`. */
  admitted(run: AdmittedRun): void {
    if (this.#onAdmitted === undefined) return;
    const { id, requestId, app, operation, frontDoor, task, receivedAt } = run;
    const name = task === undefined ? null : boundedName(task);
    this.#onAdmitted({ id, requestId, app, operation, frontDoor, task: name, createdAt: receivedAt });
  }

  record(record: UsageRecord): void {
    if (this.#closed) {
      // After the final flush the ledger may be closed: keep the record in the spill file.
      this.#recorded++;
      this.#written++;
      spillRecords([record], this.#spillDir, this.#logger);
      return;
    }
    this.#buffer.push(record);
    this.#recorded++;
    if (this.#buffer.length < this.#batchSize) {
      this.#timer ??= setTimeout(this.#onTimer, this.#flushIntervalMs);
    } else if (this.#immediate === undefined && !this.#backingOff) {
      // A full batch is written on the next turn of the event loop, never inside the request;
      // while backing off after a failure, the retry timer is already set.
      this.#immediate = setImmediate(this.#onFullBatch);
    }
  }

  /** Records not yet in the ledger, the batch being written included. */
  get pending(): number {
    return this.#recorded - this.#written;
  }

  /**
   * Resolves at once (undefined) unless the backlog is past the high-water mark; then resolves
   * when it drops below, or rejects with a 503 `service_unavailable` after the bounded wait.
   */
  whenWritable(): Promise<void> | undefined {
    if (this.pending < this.#highWaterMark) return undefined;
    return this.#room.wait();
  }

  /**
   * Waits until every record recorded before the call is in the ledger, or until a write fails
   * (the records stay queued and are retried). With `final`, retries a few times and spills
   * what the ledger still refuses to a JSON-lines file; later records go straight to the file.
   */
  async flush(options: { final?: boolean } = {}): Promise<void> {
    if (options.final === true) return this.#close();
    const upTo = this.#recorded;
    if (this.#written >= upTo) return;
    const flushed = new Promise<void>((resolve) => this.#flushes.push({ upTo, resolve }));
    this.#startDrain();
    return flushed;
  }

  /**
   * `flush()` for a read that should see this instance's latest records: waited for at most
   * READ_FLUSH_WAIT_MS, after which the read answers with what the database holds (the records
   * stay queued, as after a failed write).
   */
  async flushBeforeRead(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, READ_FLUSH_WAIT_MS);
    });
    try {
      await Promise.race([this.flush(), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#backingOff = false;
    this.#startDrain();
  };

  readonly #onFullBatch = (): void => {
    this.#immediate = undefined;
    if (!this.#backingOff) this.#startDrain();
  };

  /** Starts the drain loop unless it runs already (then it will take the new records too). */
  #startDrain(): void {
    if (this.#draining !== undefined || this.#closed || this.pending === 0) return;
    this.#clearTriggers();
    // Set before the loop runs, so nothing starts a second one meanwhile.
    this.#draining = Promise.resolve().then(() => this.#drainThenSettle());
  }

  async #drainThenSettle(): Promise<void> {
    let drained = false;
    try {
      drained = await this.#drain();
    } finally {
      this.#draining = undefined;
    }
    if (drained) {
      // With nothing left, drop the timer records set while the loop ran, so no timer outlives
      // the work (nor holds a process that is otherwise done). Records left for the next batch
      // keep theirs (the first of them set it), or get one here.
      if (this.pending === 0) this.#clearTriggers();
      else this.#timer ??= setTimeout(this.#onTimer, this.#flushIntervalMs);
      return;
    }
    // The ledger failed: flushes waiting now get their answer (their records stay queued).
    this.#settleFlushes(Number.POSITIVE_INFINITY);
    if (this.#closing) return;
    const backoff = Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(this.#failures, 6));
    clearTimeout(this.#timer);
    this.#backingOff = true;
    this.#timer = setTimeout(this.#onTimer, backoff);
  }

  /** Writes batches until nothing is pending (true) or a write fails (false). */
  async #drain(): Promise<boolean> {
    for (;;) {
      const batch = this.#batch ?? this.#takeBatch();
      if (batch === undefined) return true;
      this.#batch = batch;
      try {
        await this.#ledger.appendBatch(batch);
      } catch (error) {
        this.#failures++;
        this.#logger.error({ err: error, pending: this.pending }, 'usage ledger write failed; will retry');
        return false;
      }
      this.#batch = undefined;
      this.#failures = 0;
      this.#markWritten(batch.length);
      if (!this.#mustWriteOn()) return true;
      // Let waiting requests run between batches: a synchronous ledger would otherwise
      // write the whole backlog in one go (awaiting it only yields to microtasks).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Whether the loop goes on after a batch: with a full batch waiting, a flush still waiting, or
   * at shutdown. A few records that came during the write wait for their timer or for the batch
   * to fill: going on with them wrote, under steady light traffic, a transaction of one to three
   * records after nearly every full one (the bench's chat at one connection: the writer thread's
   * batches alternated 50 and 1-3 records), each with a commit, and on PostgreSQL a round trip.
   */
  #mustWriteOn(): boolean {
    if (this.#buffer.length === 0) return false;
    return this.#buffer.length >= this.#batchSize || this.#flushes.length > 0 || this.#closing;
  }

  #clearTriggers(): void {
    clearTimeout(this.#timer);
    clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
    this.#backingOff = false;
  }

  #takeBatch(): UsageRecord[] | undefined {
    const buffer = this.#buffer;
    if (buffer.length === 0) return undefined;
    if (buffer.length <= this.#batchSize) {
      this.#buffer = [];
      return buffer;
    }
    return buffer.splice(0, this.#batchSize);
  }

  #markWritten(count: number): void {
    this.#written += count;
    this.#settleFlushes(this.#written);
    if (this.pending < this.#highWaterMark) this.#room.release();
  }

  #settleFlushes(upTo: number): void {
    let settled = 0;
    while (settled < this.#flushes.length && (this.#flushes[settled]?.upTo ?? 0) <= upTo) settled++;
    if (settled === 0) return;
    for (const flush of this.#flushes.splice(0, settled)) flush.resolve();
  }

  async #close(): Promise<void> {
    this.#closing = true;
    this.#clearTriggers();
    for (let attempts = 0; ; attempts++) {
      // Join a write in flight: a batch it may still commit must not be spilled as well.
      while (this.#draining !== undefined) await this.#draining;
      if (this.pending === 0 || attempts === FINAL_ATTEMPTS || this.#closed) break;
      this.#startDrain();
    }
    if (this.#closed) return;
    // Records that came during shutdown may have set a timer; they are written or spilled now.
    this.#clearTriggers();
    const rest = [...(this.#batch ?? []), ...this.#buffer];
    this.#batch = undefined;
    this.#buffer = [];
    this.#closed = true;
    if (rest.length > 0) spillRecords(rest, this.#spillDir, this.#logger);
    this.#markWritten(rest.length);
    this.#settleFlushes(Number.POSITIVE_INFINITY);
    this.#room.release();
  }
}
