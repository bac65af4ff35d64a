/**
 * A Map with at most `maxEntries` entries that forgets the least recently used one first. For
 * caches keyed by what callers send (app names, model names): without a bound, a caller inventing
 * names grows the process's memory without end.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #maxEntries: number;
  /**
   * The most recently used key, while it is in the map: reading it again needs no move. A move is
   * a delete and a set, and a Map that keeps being emptied and refilled at one end is rebuilt by
   * V8 every few moves (about 900 instructions each time, twice a chat request with one app and
   * one model, by bench/instructions.ts --runtime-callers).
   */
  #youngest: K | undefined;
  #hasYoungest = false;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError('maxEntries must be at least 1');
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined || (this.#hasYoungest && this.#youngest === key)) return value;
    // A Map iterates in insertion order: re-inserting moves the key to the young end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#youngest = key;
    this.#hasYoungest = true;
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#youngest = key;
    this.#hasYoungest = true;
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
    if (this.#youngest === key) {
      this.#youngest = undefined;
      this.#hasYoungest = false;
    }
  }
}
