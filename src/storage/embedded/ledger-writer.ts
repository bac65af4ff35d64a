import { Worker } from 'node:worker_threads';
import type { RollupDelete } from './delete-ledger-before.js';
import type { InsertShape, LedgerBatch } from './write-ledger-batch.js';

export interface LedgerWriterOptions {
  /** The database file (the worker opens its own connection to it). */
  file: string;
  requestInsert: InsertShape;
  attemptInsert: InsertShape;
}

interface Reply {
  id: number;
  ok: boolean;
  message?: string;
  /** For a delete: the requests it deleted. */
  deleted?: number;
}

/**
 * Runs the embedded ledger's INSERTs on a worker thread with its own connection to the same
 * SQLite file; WAL lets it write while the main connection reads. node:sqlite is synchronous, so
 * on the main thread every batch held the event loop (about 16% of chat throughput at
 * concurrency 50 in `npm run bench`); here the main thread only copies the rows to the worker.
 *
 * The worker is started on first use and again after it died; while a batch is in flight it
 * keeps the process alive, so a flush at shutdown is never cut short.
 */
export class LedgerWriterThread {
  readonly #options: LedgerWriterOptions;
  readonly #pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  #worker: Worker | undefined;
  #nextId = 0;

  constructor(options: LedgerWriterOptions) {
    this.#options = options;
  }

  /** Resolves once the batch is committed; rejects (nothing written) if the transaction failed. */
  async write(batch: LedgerBatch): Promise<void> {
    await this.#send({ batch });
  }

  /**
   * Retention's deletes (delete-ledger-before.js), on this thread: on the main connection they held
   * the event loop for as long as they ran. One chunk of the oldest requests per call, so that the
   * batches posted meanwhile are written between two chunks; resolves with the requests deleted.
   */
  async deleteOldest(cutoff: number): Promise<number> {
    return (await this.#send({ deleteBefore: cutoff })).deleted ?? 0;
  }

  async deleteRollups(rollups: readonly RollupDelete[]): Promise<void> {
    await this.#send({ deleteRollups: rollups });
  }

  #send(
    message: { batch: LedgerBatch } | { deleteBefore: number } | { deleteRollups: readonly RollupDelete[] },
  ): Promise<Reply> {
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, ...message });
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  #start(): Worker {
    const worker = new Worker(new URL('./ledger-writer-worker.js', import.meta.url), {
      workerData: this.#options,
      // It holds one batch at a time: a small heap keeps its share of the RSS small.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      if (pending === undefined) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if (reply.ok) pending.resolve(reply);
      else pending.reject(new Error(`usage ledger write failed: ${reply.message}`));
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`usage ledger writer thread exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }
}
