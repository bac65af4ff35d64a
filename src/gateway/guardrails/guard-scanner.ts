import { hash } from 'node:crypto';
import type { GuardPhase, GuardSettings } from '../../config/guardrail-settings.ts';
import type { CompiledGuard } from './compile-guards.ts';
import type { GuardVerdict } from './guard-verdict.ts';
import { ScanThread, type ScanThreadOptions } from './scan-thread.ts';
import { combineOutcomes, type TextOutcome } from './text-outcome.ts';

/** Texts shorter than this are scanned again each time: hashing them would cost what scanning does. */
const CACHED_FROM_CHARS = 1024;
/** The cache's bounds: outcomes kept, and characters of masked texts held with them. */
const MAX_ENTRIES = 4096;
const MAX_MASKED_CHARS = 16 * 1024 * 1024;

/**
 * The detector guards' scan of a request's texts: each text's outcome from the cache when the same
 * text met the same guards before, the rest scanned (on the scan thread when large), the verdict
 * put together from the outcomes. An agent sends its whole history again on every turn, so after
 * the first turn only the new messages are read: the history costs a SHA-256 of each long text
 * (about a millisecond per MiB) where the detectors cost 4-80. The key is the guards' names and
 * the text's digest, never the text; a masked text is kept with its outcome (bounded).
 */
export class GuardScanner {
  readonly #thread: ScanThread;
  readonly #cache = new Map<string, TextOutcome>();
  #maskedChars = 0;

  constructor(settings: readonly GuardSettings[], options: ScanThreadOptions = {}) {
    this.#thread = new ScanThread(settings, options);
  }

  /** Whether the scan thread is running. */
  get threadRunning(): boolean {
    return this.#thread.running;
  }

  scan(
    phase: GuardPhase,
    guards: readonly CompiledGuard[],
    texts: readonly string[],
  ): GuardVerdict | Promise<GuardVerdict> {
    const names = guards.map((guard) => guard.name).join('\u0000');
    const outcomes: TextOutcome[] = new Array(texts.length);
    const missing: number[] = [];
    const keys: (string | undefined)[] = new Array(texts.length);
    for (let index = 0; index < texts.length; index++) {
      const text = texts[index] as string;
      if (text.length >= CACHED_FROM_CHARS) {
        const key = `${names}\u0000${hash('sha256', text, 'base64')}`;
        const known = this.#cache.get(key);
        if (known !== undefined) {
          // Most recently used last: the oldest entry is the first to go.
          this.#cache.delete(key);
          this.#cache.set(key, known);
          outcomes[index] = known;
          continue;
        }
        keys[index] = key;
      }
      missing.push(index);
    }
    if (missing.length === 0) return combineOutcomes(phase, guards, texts, outcomes);
    const finish = (found: readonly TextOutcome[]): GuardVerdict => {
      missing.forEach((index, at) => {
        const outcome = found[at] as TextOutcome;
        outcomes[index] = outcome;
        const key = keys[index];
        if (key !== undefined) this.#keep(key, outcome);
      });
      return combineOutcomes(phase, guards, texts, outcomes);
    };
    const scanned = this.#thread.outcomes(
      guards,
      missing.map((index) => texts[index] as string),
    );
    return scanned instanceof Promise ? scanned.then(finish) : finish(scanned);
  }

  close(): Promise<void> {
    return this.#thread.close();
  }

  #keep(key: string, outcome: TextOutcome): void {
    const size = outcome.masked?.length ?? 0;
    if (size > MAX_MASKED_CHARS / 4) return;
    this.#cache.set(key, outcome);
    this.#maskedChars += size;
    for (const [oldest, kept] of this.#cache) {
      if (this.#cache.size <= MAX_ENTRIES && this.#maskedChars <= MAX_MASKED_CHARS) break;
      this.#cache.delete(oldest);
      this.#maskedChars -= kept.masked?.length ?? 0;
    }
  }
}
