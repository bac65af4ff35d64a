/**
 * Where the response cache keeps its entries (CONTRACT 5.5): opaque text under a key, for a time.
 * In this process by default; in Redis, shared by every instance, when REDIS_URL is set. A store
 * never throws and never makes a request wait long: an entry it cannot read is a miss, one it
 * cannot write is not kept.
 */
export interface ResponseCacheStore {
  /** The entry's text, or undefined: absent, expired, or the store unreachable. */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key` for `ttlMs`; a store that fails keeps nothing. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

interface Entry {
  value: string;
  bytes: number;
  expiresAt: number;
}

/**
 * The in-process store: bounded in bytes (the keys' and values' UTF-8 length together), the least
 * recently used entries dropped first when a new one does not fit. A Map keeps insertion order,
 * so a read that moves its entry to the end keeps the order of use; expired entries go when read
 * or when they reach the front.
 */
export class InProcessResponseCacheStore implements ResponseCacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  /** `now` is the clock TTLs are measured on (epoch ms). */
  constructor(maxBytes: number, now: () => number) {
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  /** Bytes held now (tests and the bound). */
  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    this.#drop(key);
    if (bytes > this.#maxBytes) return;
    const now = this.#now();
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes && entry.expiresAt > now) break;
      this.#drop(oldest);
    }
    this.#entries.set(key, { value, bytes, expiresAt: now + ttlMs });
    this.#bytes += bytes;
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
