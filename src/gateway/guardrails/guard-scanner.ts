import type { GuardPhase, GuardSettings } from '../../config/guardrail-settings.ts';
import { runDetectorGuards } from './check-texts.ts';
import type { CompiledGuard } from './compile-guards.ts';
import type { GuardVerdict } from './guard-verdict.ts';
import { ScanThread, type ScanThreadOptions } from './scan-thread.ts';
import { combineOutcomes, type TextOutcome } from './text-outcome.ts';

/** Texts shorter than this are scanned again each time: hashing them would cost what scanning does. */
const CACHED_FROM_CHARS = 1024;
/** The cache's bounds: outcomes kept, and characters held with them (the texts, and the masked ones). */
const MAX_ENTRIES = 4096;
const MAX_CHARS = 16 * 1024 * 1024;

/** A kept outcome, with the text it is the outcome of (a lookup compares it whole). */
interface Kept {
  text: string;
  outcome: TextOutcome;
}

/**
 * Where a text's outcome is looked for: the app that sent it, the guards, its length and three
 * samples of it. Texts that share a key are told apart by comparing them whole (a memory compare,
 * far cheaper than a digest), so no text ever gets another's outcome, however it was made. The
 * app is part of the key so that one app's outcomes never answer another's: a hit answers sooner
 * than a scan, and a shared cache would let an app time whether another app sent a given text.
 */
function cacheKey(app: string, names: string, text: string): string {
  const middle = text.length >> 1;
  return `${app}\u0000${names}\u0000${text.length}\u0000${text.slice(0, 32)}${text.slice(middle, middle + 32)}${text.slice(-32)}`;
}

/**
 * The detector guards' scan of a request's texts: each text's outcome from the cache when the same
 * text met the same guards before, the rest scanned (on the scan thread when large), the verdict
 * put together from the outcomes. An agent sends its whole history again on every turn, so after
 * the first turn only the new messages are read: the history costs a comparison of each long text
 * with the one kept (a memory compare) where the detectors cost 1-14 ms per MiB. The texts kept
 * are in this process's memory only, bounded with their masked forms (MAX_CHARS), and each is
 * reused for the app that sent it only.
 */
export class GuardScanner {
  readonly #thread: ScanThread;
  readonly #cache = new Map<string, Kept[]>();
  #entries = 0;
  #chars = 0;

  constructor(settings: readonly GuardSettings[], options: ScanThreadOptions = {}) {
    this.#thread = new ScanThread(settings, options);
  }

  /** Whether the scan thread is running. */
  get threadRunning(): boolean {
    return this.#thread.running;
  }

  /** The verdict of `guards` over `texts`, sent by `app` (whose outcomes alone it may reuse). */
  scan(
    phase: GuardPhase,
    guards: readonly CompiledGuard[],
    texts: readonly string[],
    app: string,
  ): GuardVerdict | Promise<GuardVerdict> {
    // Short texts (a chat's prompt and answer) are neither cached nor sent to the thread: they
    // are scanned here in place, with nothing kept or put together per text (issue 42).
    let size = 0;
    let long = false;
    for (const text of texts) {
      size += text.length;
      if (text.length >= CACHED_FROM_CHARS) long = true;
    }
    if (!long && this.#thread.scansHere(size)) return scanInPlace(phase, guards, texts);
    const names = guards.map((guard) => guard.name).join('\u0000');
    const outcomes: TextOutcome[] = new Array(texts.length);
    const missing: number[] = [];
    const keys: (string | undefined)[] = new Array(texts.length);
    for (let index = 0; index < texts.length; index++) {
      const text = texts[index] as string;
      if (text.length >= CACHED_FROM_CHARS) {
        const key = cacheKey(app, names, text);
        const bucket = this.#cache.get(key);
        const known = bucket?.find((kept) => kept.text === text);
        if (bucket !== undefined && known !== undefined) {
          // Most recently used last: the oldest key is the first to go.
          this.#cache.delete(key);
          this.#cache.set(key, bucket);
          outcomes[index] = known.outcome;
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
        if (key !== undefined) this.#keep(key, texts[index] as string, outcome);
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

  #keep(key: string, text: string, outcome: TextOutcome): void {
    const size = text.length + (outcome.masked?.length ?? 0);
    if (size > MAX_CHARS / 4) return;
    const bucket = this.#cache.get(key);
    if (bucket === undefined) this.#cache.set(key, [{ text, outcome }]);
    else bucket.push({ text, outcome });
    this.#entries++;
    this.#chars += size;
    for (const [oldest, kept] of this.#cache) {
      if (this.#entries <= MAX_ENTRIES && this.#chars <= MAX_CHARS) break;
      this.#cache.delete(oldest);
      for (const entry of kept) {
        this.#entries--;
        this.#chars -= entry.text.length + (entry.outcome.masked?.length ?? 0);
      }
    }
  }
}

/**
 * `runDetectorGuards`, but a block answers the texts as given, as `combineOutcomes` does (a
 * blocked request's texts go nowhere), so the verdict is the same whichever path scanned them.
 */
function scanInPlace(
  phase: GuardPhase,
  guards: readonly CompiledGuard[],
  texts: readonly string[],
): GuardVerdict {
  const verdict = runDetectorGuards(phase, guards, texts);
  if (verdict.blockedBy === undefined) return verdict;
  return { texts: [...texts], changed: false, blockedBy: verdict.blockedBy, events: verdict.events };
}
