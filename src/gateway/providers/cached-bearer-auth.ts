import type { ProviderSlot } from '../../config/config-types.ts';
import { credentialsFailure, type UpstreamAuth } from './cloud-auth.ts';

export interface BearerToken {
  token: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/** A token is renewed this long before it expires, so no request carries one about to lapse. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * A bearer token from a cloud's identity (Google's service account, Entra ID client credentials),
 * fetched once and shared by every request until it is within REFRESH_BEFORE_MS of expiry; requests
 * that arrive while it is being fetched wait for that one fetch. A failed fetch is a `credentials`
 * failure naming the source (the next request tries again).
 */
export class CachedBearerAuth implements UpstreamAuth {
  readonly #slot: ProviderSlot;
  readonly #source: string;
  readonly #fetch: () => Promise<BearerToken>;
  readonly #now: () => number;
  #current: BearerToken | undefined;
  #pending: Promise<BearerToken> | undefined;
  /** Tokens fetched so far (what tests count). */
  fetches = 0;

  constructor(slot: ProviderSlot, source: string, fetch: () => Promise<BearerToken>, now = Date.now) {
    this.#slot = slot;
    this.#source = source;
    this.#fetch = fetch;
    this.#now = now;
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${(await this.#token()).token}` };
  }

  #token(): Promise<BearerToken> {
    const current = this.#current;
    if (current !== undefined && current.expiresAt - REFRESH_BEFORE_MS > this.#now())
      return Promise.resolve(current);
    this.#pending ??= this.#renew();
    return this.#pending;
  }

  async #renew(): Promise<BearerToken> {
    try {
      this.fetches++;
      const token = await this.#fetch();
      this.#current = token;
      return token;
    } catch (error) {
      throw credentialsFailure(this.#slot, this.#source, error);
    } finally {
      this.#pending = undefined;
    }
  }
}
