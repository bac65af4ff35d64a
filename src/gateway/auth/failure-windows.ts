import { BoundedCache } from '../../platform/bounded-cache.ts';

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Failed credential checks counted per key (a client address, an app name) in fixed windows.
 * Callers choose both keys, so the table is bounded; a key pushed out starts again from zero,
 * which an attacker gains little from: the slow checks are bounded on their own as well.
 */
export class FailureWindows {
  readonly #windows: BoundedCache<string, Window>;
  readonly #windowMs: number;

  constructor(options: { windowMs: number; maxKeys: number }) {
    this.#windowMs = options.windowMs;
    this.#windows = new BoundedCache(options.maxKeys);
  }

  /** Failures of the key in the window that holds `now`. */
  failures(key: string, now: number): number {
    const window = this.#windows.get(key);
    return window === undefined || now - window.startedAt >= this.#windowMs ? 0 : window.failures;
  }

  add(key: string, now: number): void {
    const window = this.#windows.get(key);
    if (window === undefined || now - window.startedAt >= this.#windowMs)
      this.#windows.set(key, { startedAt: now, failures: 1 });
    else window.failures++;
  }

  /** Whole seconds until the key's window ends (at least 1). */
  secondsLeft(key: string, now: number): number {
    const window = this.#windows.get(key);
    const left = window === undefined ? 0 : window.startedAt + this.#windowMs - now;
    return Math.max(1, Math.ceil(left / 1000));
  }
}
