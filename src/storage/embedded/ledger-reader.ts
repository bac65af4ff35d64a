import { type ResourceLimits, Worker } from 'node:worker_threads';
import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import { OnDemandWorker } from '../../platform/on-demand-worker.ts';

type SqlParam = string | number | null;
type Row = Record<string, unknown>;

interface Call {
  resolve(rows: Row[]): void;
  reject(error: Error): void;
}

type Reply =
  | { id: number; ok: true; rows: Row[] }
  | { id: number; ok: false; message: string; code?: unknown; errcode?: unknown };

const DEPENDENCY = 'the ledger reader';

/**
 * A read over a day of a busy app's rows (its spend by end user, for the budgets view or
 * `GET /v1/usage?groupBy=endUser`) reads every row: 200,000 rows took the event loop 200-300 ms
 * on the main connection, during which no request moved. Here it takes this thread instead.
 */
const IDLE_MS = 30_000;
/** Reads waiting at most: past it a read is refused (503, Retry-After) rather than queued without end. */
export const MAX_PENDING_READS = 256;
/**
 * Reads one owner (an app; the operator's reads are one owner) may have waiting: past it that
 * owner's next read is refused, while the others still find places. Without it one app asking
 * `GET /v1/usage` again and again filled the queue, and every other app's reads were refused.
 * The queue is answered in order, so another app's read waits behind at most this many of each
 * busy owner's.
 */
export const MAX_PENDING_READS_PER_OWNER = 32;
/** Its young generation, as the JSON thread's; the old generation is V8's default, as the main thread's. */
const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16 };

export interface LedgerReaderOptions {
  /** The worker's module (tests give one they can kill). */
  workerUrl?: URL;
  idleMs?: number;
  maxPending?: number;
  maxPendingPerOwner?: number;
}

/**
 * The embedded ledger's heavy reads (totals over the rows, the rollups' reports) on a worker
 * thread with its own read-only connection to the same file: node:sqlite is synchronous, and a
 * query on the main connection holds the event loop for as long as it runs. WAL lets this
 * connection read while the writer's thread writes; it sees what was committed when its query
 * began, as the main connection would.
 *
 * Started by the first read, ended after IDLE_MS without one. If it dies, the reads on it reject
 * with DependencyUnavailableError (503 with Retry-After at the edge) and the next read starts a
 * new thread. An error of the query itself comes back as an Error with node:sqlite's `code` and
 * `errcode`, so a broken file still reads as the store being unavailable.
 */
export class LedgerReaderThread {
  readonly #worker: OnDemandWorker<Call, Reply>;
  readonly #maxPending: number;
  readonly #maxPendingPerOwner: number;
  /** Reads waiting, by owner; an owner with none is not kept. */
  readonly #pendingByOwner = new Map<string, number>();

  constructor(file: string, options: LedgerReaderOptions = {}) {
    const workerUrl = options.workerUrl ?? new URL('./ledger-reader-worker.js', import.meta.url);
    this.#maxPending = options.maxPending ?? MAX_PENDING_READS;
    this.#maxPendingPerOwner = options.maxPendingPerOwner ?? MAX_PENDING_READS_PER_OWNER;
    this.#worker = new OnDemandWorker(
      DEPENDENCY,
      {
        create: () =>
          new Worker(workerUrl, {
            name: 'ledger-reader',
            workerData: { file },
            resourceLimits: RESOURCE_LIMITS,
          }),
        answer: (call, reply) => {
          if (reply.ok) call.resolve(reply.rows);
          else
            call.reject(
              Object.assign(new Error(reply.message), { code: reply.code, errcode: reply.errcode }),
            );
        },
        lost: (calls, cause) => {
          const error = new DependencyUnavailableError(DEPENDENCY, cause);
          for (const call of calls) call.reject(error);
        },
      },
      options.idleMs ?? IDLE_MS,
    );
  }

  /**
   * The rows of a SELECT, run on the reader's thread. `owner` is whose read it is (the app a
   * read is scoped to; '' for the operator's), for its share of the queue.
   */
  all(sql: string, params: readonly SqlParam[], owner = ''): Promise<Row[]> {
    if (this.#worker.pending >= this.#maxPending)
      return refused(`${this.#maxPending} reads are waiting already`);
    const waiting = this.#pendingByOwner.get(owner) ?? 0;
    if (waiting >= this.#maxPendingPerOwner)
      return refused(`${this.#maxPendingPerOwner} reads of the same app are waiting already`);
    this.#pendingByOwner.set(owner, waiting + 1);
    const settled = () => {
      const left = (this.#pendingByOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.#pendingByOwner.delete(owner);
      else this.#pendingByOwner.set(owner, left);
    };
    return new Promise((resolve, reject) => {
      const id = this.#worker.nextId();
      const call: Call = {
        resolve: (rows) => {
          settled();
          resolve(rows);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      };
      try {
        this.#worker.send(id, call, { id, sql, params });
      } catch (error) {
        call.reject(new DependencyUnavailableError(DEPENDENCY, error));
      }
    });
  }

  /** Reads not answered yet. */
  get pending(): number {
    return this.#worker.pending;
  }

  async close(): Promise<void> {
    await this.#worker.close(new Error('the ledger reader was closed'));
  }
}

function refused(why: string): Promise<never> {
  return Promise.reject(new DependencyUnavailableError(DEPENDENCY, new Error(why)));
}
