import type { ApiError } from '../../../platform/errors.ts';
import type { FinishReason } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import type { CallSuccess } from '../upstream/upstream-caller.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { drainStream, midStreamError } from './mid-stream.ts';
import type { RequestRun } from './request-run.ts';
import type { OpenWork } from './request-run-inputs.ts';

/** What the first successful call hands over: the upstream's events and the first of them. */
export type FirstEvent<E> = CallSuccess<{ iterator: AsyncIterator<E>; first: IteratorResult<E> }>;

/**
 * One upstream stream after its first event, held by the run, whatever its events are (the
 * gateway's chat events, translated: upstream-stream.ts; the upstream's own, passed on:
 * pass-through-stream.ts). Its events are read once, each taken into the subclass's tally and
 * handed on; its end accounts the tally and finishes the run once, however the stream ends (read
 * to its end, failed, returned early by the writer, or closed by the edge before anyone read it).
 * A client gone still has the events already arrived read (drainStream), so that the request is
 * billed for what the upstream generated rather than what the client happened to read.
 */
export abstract class HeldStream<E, O> implements OpenWork {
  protected readonly run: RequestRun;
  protected readonly success: FirstEvent<E>;
  readonly #iterator: AsyncIterator<E>;
  /** The first call's result, not yet taken into the tally. */
  protected pending: IteratorResult<E> | undefined;
  protected model: string;
  protected usage: ReportedUsage | undefined;
  protected finishReason: FinishReason | undefined;
  #ending: Promise<ApiError | undefined> | undefined;

  constructor(run: RequestRun, success: FirstEvent<E>) {
    this.run = run;
    this.success = success;
    this.#iterator = success.value.iterator;
    this.pending = success.value.first;
    this.model = success.candidate.model;
  }

  /** One upstream event into the tally; what goes to the client for it, if anything. */
  protected abstract take(event: E): O | undefined;

  /** The answer's use guessed, for an upstream that reported none. */
  protected abstract estimate(tokenizer: Tokenizer): Promise<ReportedUsage>;

  /** A failure the upstream announced in its own events (an `error` event), which ends the stream failed. */
  protected announcedFailure(): unknown {
    return undefined;
  }

  /**
   * The events as they come, taken into the tally; returns the error the run finished with, if
   * any. Returned early (neither completed nor failed), the client left.
   */
  protected async *read(): AsyncGenerator<O, ApiError | undefined, undefined> {
    let cause: unknown;
    let completed = false;
    let error: ApiError | undefined;
    try {
      for (;;) {
        const next = this.pending ?? (await this.#iterator.next());
        this.pending = undefined;
        if (next.done) {
          completed = true;
          break;
        }
        const out = this.take(next.value);
        if (out !== undefined) yield out;
      }
    } catch (thrown) {
      cause = thrown;
    } finally {
      // Neither completed nor failed: the reader returned the events, which only a client gone does.
      error = await this.end(completed ? undefined : (cause ?? new ClientClosedError()));
    }
    return error;
  }

  /** Accounts the stream and finishes the run, once; the error it finished with, if any. */
  end(cause: unknown): Promise<ApiError | undefined> {
    this.#ending ??= this.#finish(cause);
    return this.#ending;
  }

  async #finish(cause: unknown): Promise<ApiError | undefined> {
    const run = this.run;
    const provider = this.success.candidate.provider;
    const announced = this.announcedFailure();
    let error: ApiError | undefined;
    if (cause instanceof ClientClosedError || run.signal.aborted) error = new ClientClosedError();
    else if (cause !== undefined) error = midStreamError(cause, provider);
    else if (announced !== undefined) error = midStreamError(announced, provider);
    let drained = true;
    if (error instanceof ClientClosedError) {
      run.clientLeft();
      drained = await drainStream(this.#iterator, this.pending, (event) => this.take(event));
      this.pending = undefined;
    }
    run.markDone();
    await run.account({
      provider,
      adapter: this.success.adapter,
      model: this.model,
      // Adapters report usage once, at the end (a relay: cumulative): when it came, it is the answer's.
      reported: this.usage,
      estimate: (tokenizer) => this.estimate(tokenizer),
      startedAt: this.success.startedAt,
      outcome:
        error === undefined ? 'ok' : error instanceof ClientClosedError ? 'client_closed' : 'stream_failed',
      finishReason: this.finishReason,
    });
    run.finish(error);
    // A read still waiting on an adapter that ignored the abort: not waited for.
    if (drained) await this.#iterator.return?.();
    else void this.#iterator.return?.()?.catch(() => {});
    return error;
  }
}
