import type { RpcPeer } from '../../platform/rpc-peer.ts';
import type { InFlightCounter, LeastBusyEntry } from '../in-flight-counter.ts';
import type { LimitStore, ReserveResult } from '../limit-store.ts';
import type { ResponseCacheStore } from '../response-cache-store.ts';

/**
 * A limit check waits this long for the primary at most. The primary answers in microseconds; past
 * this it is gone (the worker is ending) or stalled, and the request gets a clear error.
 */
const CALL_TIMEOUT_MS = 5_000;
/** A cache read that takes longer is a miss, as a Redis one is (CONTRACT 5.5). */
const CACHE_READ_TIMEOUT_MS = 250;

/**
 * The LimitStore of a worker (CONTRACT 6.8): every operation runs in the primary's one in-process
 * store, so reservations and leases are exact across workers at once. Generic over the port: an
 * operation is sent by its name with its arguments, so keys another feature adds (team budgets,
 * end users) need nothing here.
 */
export class CoordinatedLimitStore implements LimitStore {
  readonly #link: RpcPeer;

  constructor(link: RpcPeer) {
    this.#link = link;
  }

  reserve(key: string, amount: number, limit: number, resetAt: number): Promise<ReserveResult> {
    return this.#call('reserve', [key, amount, limit, resetAt]) as Promise<ReserveResult>;
  }

  async adjust(key: string, delta: number, resetAt: number): Promise<void> {
    await this.#call('adjust', [key, delta, resetAt]);
  }

  acquireLease(key: string, limit: number, now: number, expiresAt: number): Promise<string | undefined> {
    return this.#call('acquireLease', [key, limit, now, expiresAt]) as Promise<string | undefined>;
  }

  async releaseLease(key: string, leaseId: string): Promise<void> {
    await this.#call('releaseLease', [key, leaseId]);
  }

  #call(method: string, args: unknown[]): Promise<unknown> {
    return this.#link.call('limits', [method, args], CALL_TIMEOUT_MS);
  }
}

/** Calls in flight per deployment (least-busy), counted once for every worker by the primary. */
export class CoordinatedInFlightCounter implements InFlightCounter {
  readonly #link: RpcPeer;

  constructor(link: RpcPeer) {
    this.#link = link;
  }

  enterLeastBusy(keys: readonly string[], now: number, expiresAt: number): Promise<LeastBusyEntry> {
    return this.#call('enterLeastBusy', [keys, now, expiresAt]) as Promise<LeastBusyEntry>;
  }

  enter(key: string, now: number, expiresAt: number): Promise<string> {
    return this.#call('enter', [key, now, expiresAt]) as Promise<string>;
  }

  async leave(key: string, lease: string): Promise<void> {
    await this.#call('leave', [key, lease]);
  }

  #call(method: string, args: unknown[]): Promise<unknown> {
    return this.#link.call('inFlight', [method, args], CALL_TIMEOUT_MS);
  }
}

/** The response cache's entries, kept once in the primary (bounded in bytes there). */
export class CoordinatedResponseCacheStore implements ResponseCacheStore {
  readonly #link: RpcPeer;

  constructor(link: RpcPeer) {
    this.#link = link;
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.#link.call('cache.get', [key], CACHE_READ_TIMEOUT_MS)) as string | undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#link.notify('cache.set', [key, value, ttlMs]);
  }
}
