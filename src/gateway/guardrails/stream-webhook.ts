import type { GuardEvent, GuardVerdict } from './guard-verdict.ts';

/** Asks the output webhooks about one piece of a stream's text. */
export type CheckPiece = (text: string) => Promise<GuardVerdict>;

/**
 * The output webhooks over a stream (CONTRACT 6.6: the output phase is the answer, streamed or
 * not). Text the hold-back window lets go is added here; one webhook call is out at a time, and
 * what is added while it is out goes in the next call, so the calls number at most the stream's
 * length over the webhook's latency, and each piece is late by at most one call (bounded by the
 * guard's `timeoutMs`; its `failureMode` decides what a timeout does, as for any phase). A piece
 * ends at white space, so a call never sees half a word; a webhook sees each piece on its own. What a
 * call answered (the piece as it came, masked, or a block) is taken in order. Each guard's action
 * is kept once per stream, as the window's are.
 */
export class StreamWebhook {
  readonly #check: CheckPiece;
  readonly #acted = new Set<string>();
  /** What each guard did, once per guard and action, for the run's row and the metric. */
  readonly events: GuardEvent[] = [];
  #queued = '';
  /** Set while draining: the last piece goes whole, whatever it ends with. */
  #whole = false;
  #ready = '';
  #blockedBy: string | undefined;
  #call: Promise<void> | undefined;

  readonly #guard: string;

  /** `guard` names the block should a check fail unexpectedly (it does not: a webhook's failure is a verdict). */
  constructor(check: CheckPiece, guard: string) {
    this.#check = check;
    this.#guard = guard;
  }

  /** Text the window let go: checked in the next call. */
  add(text: string): void {
    if (text === '' || this.#blockedBy !== undefined) return;
    this.#queued += text;
    this.#next();
  }

  /** The guard that blocked the stream, once one has. */
  get blockedBy(): string | undefined {
    return this.#blockedBy;
  }

  /** The call that is out, if one is: a stream may wait for it or for its upstream's next event. */
  get pending(): Promise<void> | undefined {
    return this.#call;
  }

  /** What the calls answered so far, in order (nothing more after a block). */
  take(): { text: string; blockedBy: string | undefined } {
    const text = this.#blockedBy === undefined ? this.#ready : '';
    this.#ready = '';
    return { text, blockedBy: this.#blockedBy };
  }

  /** Waits until everything added has been answered. */
  async drain(): Promise<void> {
    this.#whole = true;
    this.#next();
    while (this.#call !== undefined) await this.#call;
    this.#whole = false;
  }

  #next(): void {
    if (this.#call !== undefined || this.#queued === '' || this.#blockedBy !== undefined) return;
    // A piece ends at white space, so a word or a phrase's word is never cut between two calls
    // (a run without any is sent once it is MAX_RUN long); the stretch's end goes whole.
    let cut = this.#queued.length;
    if (!this.#whole) {
      cut = lastSpace(this.#queued) + 1;
      if (cut === 0 && this.#queued.length < MAX_RUN) return;
      if (cut === 0) cut = this.#queued.length;
    }
    const piece = this.#queued.slice(0, cut);
    this.#queued = this.#queued.slice(cut);
    this.#call = this.#check(piece)
      .then((verdict) => {
        for (const event of verdict.events) {
          const key = `${event.guard}\u0000${event.action}`;
          if (this.#acted.has(key)) continue;
          this.#acted.add(key);
          this.events.push(event);
        }
        if (verdict.blockedBy !== undefined) this.#blockedBy = verdict.blockedBy;
        else this.#ready += verdict.texts[0] ?? piece;
      })
      .catch(() => {
        this.#blockedBy ??= this.#guard;
      })
      .finally(() => {
        this.#call = undefined;
        this.#next();
      });
  }
}

/** The longest run without white space held back from a webhook call. */
const MAX_RUN = 16 * 1024;

function lastSpace(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    const code = text.charCodeAt(index);
    if (code === 32 || code === 10 || code === 9 || code === 13) return index;
  }
  return -1;
}
