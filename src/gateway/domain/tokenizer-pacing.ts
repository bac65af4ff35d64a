/** Characters tokenized between two yields: a few milliseconds of work at worst. */
const YIELD_EVERY_CHARS = 8 * 1024;

/** Yields to the event loop after each YIELD_EVERY_CHARS characters of tokenizing. */
export class Pacer {
  #sinceYield = 0;

  async after(chars: number): Promise<void> {
    this.#sinceYield += chars;
    if (this.#sinceYield < YIELD_EVERY_CHARS) return;
    this.#sinceYield = 0;
    // setImmediate, not a microtask: pending I/O (other calls' messages) runs before the next batch.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
