import type { GuardPhase } from '../../config/guardrail-settings.ts';
import type { CompiledGuard } from './compile-guards.ts';
import type { Finding } from './finding.ts';
import type { GuardEvent } from './guard-verdict.ts';
import { maskOf, mergeFindings } from './mask-text.ts';

/** Text a held match may grow to before it is let go masked (a JWT of several kilobytes). */
const MAX_HELD = 16 * 1024;
/** How much of the text let go the detectors read before the held text (an e-mail's local part is 64). */
const CONTEXT = 64;
const END_OF_KEY = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/;

/** What a stream's next piece is, once the guards have seen it. */
export interface Released {
  /** Text the client may have now, masked where a guard masked. */
  text: string;
  /** The guard that blocked the stream, if one did: nothing more goes out. */
  blockedBy: string | undefined;
}

/**
 * The output guards over a stream of text (CONTRACT 6.6): the last `window` characters are held
 * back, so a match split across chunks is whole before any of it goes out, and text is released
 * as soon as it is more than `window` characters old, so the first token is late by at most the
 * window. A match that reaches the end of what arrived is held from its start until it ends (or
 * MAX_HELD). A PEM private key is cut from its BEGIN line on: its mask goes out at once, and what
 * follows is dropped until its END line, however far (CONTRACT 6.9). Only detector guards run
 * here; each guard that acted is one event.
 */
export class HoldBack {
  readonly #guards: readonly CompiledGuard[];
  readonly #window: number;
  readonly #phase: GuardPhase;
  readonly #acted = new Set<string>();
  readonly events: GuardEvent[] = [];
  #held = '';
  /**
   * The last characters let go (as the upstream wrote them), read before what is held: a
   * detector's boundary test sees what preceded the held text, so the tail of `task-…` is not an
   * OpenAI key `sk-…` because the window's edge fell inside it.
   */
  #before = '';
  /** Inside a private key whose END line has not come yet. */
  #inKey = false;
  #blockedBy: string | undefined;

  constructor(guards: readonly CompiledGuard[], window: number, phase: GuardPhase = 'output') {
    this.#guards = guards.filter((guard) => guard.detector !== undefined);
    this.#window = window;
    this.#phase = phase;
  }

  get blockedBy(): string | undefined {
    return this.#blockedBy;
  }

  /** Takes the next piece of the stream; answers what may go out now. */
  push(text: string): Released {
    if (this.#blockedBy !== undefined) return { text: '', blockedBy: this.#blockedBy };
    this.#held += text;
    return this.#release(false);
  }

  /** More text comes after a flush (a tool call between two stretches of text). */
  reopen(): void {
    this.#held = '';
    this.#before = '';
  }

  /** The stream ended: everything held goes out, masked. */
  flush(): Released {
    if (this.#blockedBy !== undefined) return { text: '', blockedBy: this.#blockedBy };
    return this.#release(true);
  }

  #release(final: boolean): Released {
    let out = '';
    if (this.#inKey) {
      const end = END_OF_KEY.exec(this.#held);
      if (end === null) {
        this.#held = final ? '' : this.#held.slice(-64);
        return { text: '', blockedBy: undefined };
      }
      this.#held = this.#held.slice(end.index + end[0].length);
      // What went before the held text is the key's END line (dropped, but a boundary all the same).
      this.#before = end[0];
      this.#inKey = false;
    }
    const held = this.#held;
    const found: (Finding & { guard: CompiledGuard })[] = [];
    for (const guard of this.#guards) {
      const into: Finding[] = [];
      guard.detector?.(this.#before + held, into);
      const shift = this.#before.length;
      for (const finding of into) {
        // A match that began in text already let go is masked from where the held text starts.
        if (finding.end <= shift) continue;
        found.push({
          ...finding,
          start: Math.max(0, finding.start - shift),
          end: finding.end - shift,
          guard,
        });
      }
    }
    let release = final ? held.length : Math.max(0, held.length - this.#window);
    // A run of token characters still being written (a key, a JWT past the window) is held whole.
    if (!final) release = Math.min(release, trailingRunStart(held));
    for (const finding of found) {
      // A match that reaches what has arrived so far may go on: hold it from its start.
      if (!final && finding.end >= held.length && finding.type !== 'PRIVATE_KEY' && held.length < MAX_HELD)
        release = Math.min(release, finding.start);
    }
    // Nothing goes out half masked: a match across the release point is held from its start.
    for (const span of mergeFindings(found))
      if (span.start < release && span.end > release && span.type !== 'PRIVATE_KEY') release = span.start;
    // A complete match acts at once when it blocks; a mask waits until its text goes out.
    const acting = found.filter(
      (finding) =>
        finding.start < release ||
        finding.type === 'PRIVATE_KEY' ||
        (finding.guard.action === 'block' && finding.end < held.length),
    );
    for (const finding of acting) {
      this.#note(finding.guard);
      if (finding.guard.action === 'block') {
        this.#blockedBy = finding.guard.name;
        this.#held = '';
        return { text: '', blockedBy: finding.guard.name };
      }
    }
    const masks = acting.filter((finding) => finding.guard.action === 'mask');
    const key = masks.find(
      (finding) => finding.type === 'PRIVATE_KEY' && finding.end === held.length && !final,
    );
    if (key !== undefined) {
      // The key's end may be far past the window: cut here, drop until its END line. Everything
      // before the key goes out now, so every match in it acts now, not only those that were
      // past the window (a JWT just before the key went out unmasked).
      release = key.start;
      const before = found.filter((finding) => finding.start < release && finding !== key);
      for (const finding of before) {
        this.#note(finding.guard);
        if (finding.guard.action === 'block') {
          this.#blockedBy = finding.guard.name;
          this.#held = '';
          return { text: '', blockedBy: finding.guard.name };
        }
      }
      const masked = before.filter((finding) => finding.guard.action === 'mask');
      out = maskSpan(held, 0, release, masked) + maskOf('PRIVATE_KEY');
      this.#inKey = !held.slice(key.start).match(END_OF_KEY);
      this.#held = this.#inKey ? held.slice(-64) : '';
      this.#before = '';
      return { text: out, blockedBy: undefined };
    }
    out = maskSpan(held, 0, release, masks);
    this.#before = (this.#before + held.slice(0, release)).slice(-CONTEXT);
    this.#held = held.slice(release);
    return { text: out, blockedBy: undefined };
  }

  #note(guard: CompiledGuard): void {
    if (this.#acted.has(guard.name)) return;
    this.#acted.add(guard.name);
    this.events.push({ guard: guard.name, phase: this.#phase, action: guard.action });
  }
}

/**
 * Where the run of token characters (letters, digits, `_ - . + / = :`) that ends `text` starts;
 * a run longer than MAX_HELD is let go (masked as it is, if it matches).
 */
function trailingRunStart(text: string): number {
  let start = text.length;
  while (start > 0 && text.length - start < MAX_HELD && isTokenCode(text.charCodeAt(start - 1))) start--;
  return text.length - start >= MAX_HELD ? text.length : start;
}

function isTokenCode(code: number): boolean {
  return (
    (code >= 48 && code <= 58) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45 ||
    code === 46 ||
    code === 43 ||
    code === 47 ||
    code === 61
  );
}

/** `text[from, to)` with the findings inside it masked. */
function maskSpan(text: string, from: number, to: number, findings: readonly Finding[]): string {
  let out = '';
  let at = from;
  for (const finding of mergeFindings(findings.filter((item) => item.start >= from && item.end <= to))) {
    if (finding.start < at) continue;
    out += text.slice(at, finding.start) + maskOf(finding.type);
    at = finding.end;
  }
  return out + text.slice(at, to);
}
