import type { CircuitSettings } from '../../config/config-types.ts';
import type { Logger } from '../../platform/logger.ts';
import { aggregateMetrics, type CollectedMetricJson } from '../../platform/metrics/aggregate-metrics.ts';
import { type MessagePortLike, RpcPeer } from '../../platform/rpc-peer.ts';
import { InProcessInFlightCounter, type LeastBusyEntry } from '../in-flight-counter.ts';
import { InProcessLimitStore } from '../limit-store.ts';
import type { HeldRun, Storage, UsageRecord } from '../ports.ts';
import { InProcessResponseCacheStore } from '../response-cache-store.ts';
import { CircuitBoard } from './circuit-board.ts';
import { STORAGE_PORTS } from './coordinated-storage.ts';

export interface CoordinatorOptions {
  circuit: CircuitSettings;
  responseCacheMaxBytes: number;
  /** The database: the ledger rows of lost requests go here, and workers' calls when `serveStorage`. */
  storage: Storage;
  /** The embedded database: workers reach it through the primary (its one writer). */
  serveStorage: boolean;
  logger: Logger;
  now?: () => number;
}

/** What the primary knows of one worker: its channel, what it holds, the requests it serves. */
interface WorkerEntry {
  peer: RpcPeer;
  /** Limit leases (`key`, `lease`) it took and has not released. */
  leases: Map<string, [string, string]>;
  /** In-flight leases (`key`, `lease`) of its calls to deployments. */
  flights: Map<string, [string, string]>;
  held: Map<string, HeldRun>;
}

/** Longest a worker may take to hand its metrics for the instance's GET /metrics. */
const METRICS_TIMEOUT_MS = 2_000;

/**
 * The shared state of an instance's workers, in its primary (CONTRACT 6.8, decision 0031): the
 * same in-process stores a single process uses, reached over each worker's IPC channel, so a
 * limit, a lease or a budget is checked by one event loop for every worker and is exact at once.
 * It also passes circuit states and rests to every worker as they change, keeps the embedded
 * database's one writer, writes a row for each request a dead worker held, and gathers /metrics.
 */
export class Coordinator {
  readonly #options: CoordinatorOptions;
  readonly #now: () => number;
  readonly #limits = new InProcessLimitStore();
  readonly #inFlight = new InProcessInFlightCounter();
  readonly #cache: InProcessResponseCacheStore;
  readonly #circuits: CircuitBoard;
  /** Rests in force, as epoch ms they end, for a worker that joins later. */
  readonly #rests = new Map<string, number>();
  readonly #workers = new Map<number, WorkerEntry>();

  constructor(options: CoordinatorOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#cache = new InProcessResponseCacheStore(options.responseCacheMaxBytes, this.#now);
    this.#circuits = new CircuitBoard(options.circuit);
  }

  /** Serves a new worker `id` on its channel, and tells it the circuits and rests in force. */
  attach(id: number, port: MessagePortLike): RpcPeer {
    const peer = new RpcPeer(port);
    const worker: WorkerEntry = { peer, leases: new Map(), flights: new Map(), held: new Map() };
    this.#workers.set(id, worker);
    peer.handle('limits', (method: string, args: unknown[]) => this.#limitCall(worker, method, args));
    peer.handle('inFlight', (method: string, args: unknown[]) => this.#inFlightCall(worker, method, args));
    peer.handle('cache.get', (key: string) => this.#cache.get(key));
    peer.handle('cache.set', (key: string, value: string, ttlMs: number) =>
      this.#cache.set(key, value, ttlMs),
    );
    peer.handle('health.failure', (key: string, now: number, probe: boolean) =>
      this.#broadcast('health.state', [this.#circuits.failed(key, now, probe)]),
    );
    peer.handle('health.success', (key: string) =>
      this.#broadcast('health.state', [this.#circuits.succeeded(key)]),
    );
    peer.handle('rest', (key: string, restMs: number) => {
      if (restMs > 0) this.#rests.set(key, this.#now() + restMs);
      else this.#rests.delete(key);
      this.#broadcast('rest', [key, restMs], id);
    });
    peer.handle('runs.open', (runs: HeldRun[]) => {
      for (const run of runs) worker.held.set(run.id, run);
    });
    peer.handle('runs.written', (ids: string[]) => {
      for (const runId of ids) worker.held.delete(runId);
    });
    peer.handle('metrics', () => this.metrics());
    if (this.#options.serveStorage) {
      peer.handle('storage', (name: string, method: string, args: unknown[]) =>
        this.#storageCall(worker, name, method, args),
      );
    }
    for (const state of this.#circuits.states()) peer.notify('health.state', [state]);
    const now = this.#now();
    for (const [key, until] of this.#rests) if (until > now) peer.notify('rest', [key, until - now]);
    return peer;
  }

  /**
   * Worker `id` has ended: its leases go back at once, and every request it held that has no row
   * gets one (status 500, `worker_lost`). Resolves when those rows are written.
   */
  async detach(id: number): Promise<number> {
    const worker = this.#workers.get(id);
    if (worker === undefined) return 0;
    this.#workers.delete(id);
    worker.peer.close();
    for (const [key, lease] of worker.leases.values()) await this.#limits.releaseLease(key, lease);
    for (const [key, lease] of worker.flights.values()) await this.#inFlight.leave(key, lease);
    const lost = [...worker.held.values()].map((run) => lostRecord(run, this.#now()));
    if (lost.length === 0) return 0;
    try {
      await this.#options.storage.usage.appendBatch(lost);
      this.#options.logger.warn(
        { worker: id, requests: lost.length },
        'rows written for the requests of a worker that died',
      );
    } catch (error) {
      this.#options.logger.error(
        { err: error, worker: id, requests: lost.length },
        'rows of a dead worker not written',
      );
    }
    return lost.length;
  }

  /** GET /metrics for the whole instance: every worker's families, summed (or as each family says). */
  async metrics(): Promise<string> {
    const collected = await Promise.all(
      [...this.#workers.values()].map((worker) =>
        worker.peer.call('metrics.collect', [], METRICS_TIMEOUT_MS).catch(() => undefined),
      ),
    );
    return aggregateMetrics(collected.filter((m): m is CollectedMetricJson[] => m !== undefined));
  }

  /** Tells every worker (but `except`) `op`. */
  #broadcast(op: string, args: unknown[], except?: number): void {
    for (const [id, worker] of this.#workers) if (id !== except) worker.peer.notify(op, args);
  }

  async #limitCall(worker: WorkerEntry, method: string, args: unknown[]): Promise<unknown> {
    const limits = this.#limits as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const operation = limits[method];
    if (typeof operation !== 'function' || method.startsWith('#'))
      throw new Error(`no limit operation ${method}`);
    const result = await operation.apply(this.#limits, args);
    const key = args[0] as string;
    if (method === 'acquireLease' && typeof result === 'string')
      worker.leases.set(`${key}\n${result}`, [key, result]);
    if (method === 'releaseLease') worker.leases.delete(`${key}\n${args[1] as string}`);
    return result;
  }

  async #inFlightCall(worker: WorkerEntry, method: string, args: unknown[]): Promise<unknown> {
    if (method === 'enterLeastBusy') {
      const [keys, now, expiresAt] = args as [string[], number, number];
      const entry: LeastBusyEntry = await this.#inFlight.enterLeastBusy(keys, now, expiresAt);
      const key = keys[entry.index] as string;
      worker.flights.set(`${key}\n${entry.lease}`, [key, entry.lease]);
      return entry;
    }
    if (method === 'enter') {
      const [key, now, expiresAt] = args as [string, number, number];
      const lease = await this.#inFlight.enter(key, now, expiresAt);
      worker.flights.set(`${key}\n${lease}`, [key, lease]);
      return lease;
    }
    if (method === 'leave') {
      const [key, lease] = args as [string, string];
      worker.flights.delete(`${key}\n${lease}`);
      return this.#inFlight.leave(key, lease);
    }
    throw new Error(`no in-flight operation ${method}`);
  }

  async #storageCall(worker: WorkerEntry, name: string, method: string, args: unknown[]): Promise<unknown> {
    const storage = this.#options.storage;
    if (name === 'ping') return storage.ping();
    if (!(STORAGE_PORTS as readonly string[]).includes(name)) throw new Error(`no storage port ${name}`);
    const port = storage[name as (typeof STORAGE_PORTS)[number]] as unknown as Record<string, unknown>;
    const operation = port[method];
    if (typeof operation !== 'function') throw new Error(`no storage operation ${name}.${method}`);
    const result = await (operation as (...a: unknown[]) => Promise<unknown>).apply(port, args);
    if (name === 'usage' && method === 'appendBatch') {
      for (const record of args[0] as UsageRecord[]) worker.held.delete(record.id);
    }
    return result;
  }
}

/** The row of a request whose worker died before recording it. */
function lostRecord(run: HeldRun, now: number): UsageRecord {
  return {
    ...run,
    provider: null,
    model: null,
    tokensIn: 0,
    tokensOut: 0,
    usageEstimated: true,
    costUsd: 0,
    priceSource: null,
    latencyMs: Math.max(0, now - run.createdAt),
    upstreamFirstByteMs: null,
    upstreamMs: null,
    status: 500,
    errorCode: 'worker_lost',
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    deployment: null,
    cacheHit: false,
    costSavedUsd: 0,
    mcpServer: null,
    mcpTool: null,
    guardrails: null,
    attempts: [],
  };
}
