import type { ApiError, ErrorEnvelope } from '../../../platform/errors.ts';
import type { FinishReason } from '../../domain/messages.ts';
import { priceUsage, roundCost } from '../../domain/pricing.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { RelayedEvent } from '../../providers/messages-relay.ts';
import type { ProviderError } from '../../providers/provider-error.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import type { CallSuccess } from '../upstream/upstream-caller.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { countOrGuess } from './count-or-guess.ts';
import { drainStream, midStreamError } from './mid-stream.ts';
import type { RequestRun } from './request-run.ts';
import type { OpenWork } from './request-run-inputs.ts';

/**
 * What a relayed stream hands its door: each upstream event as it came (`costUsd` on the event
 * the relay says carries the cost, Anthropic's `message_delta`: the whole request's cost so far,
 * for the door to add where its format says it), or, when
 * the stream broke without an event of the upstream's saying so, the gateway's error.
 */
export type RelayOut =
  | { kind: 'event'; event: string; data: string; costUsd?: number }
  | { kind: 'error'; error: ErrorEnvelope };

/** The relayed call that answered: the upstream's events and the first of them. */
export type RelayFirstEvent = CallSuccess<{
  iterator: AsyncIterator<RelayedEvent>;
  first: IteratorResult<RelayedEvent>;
}>;

/**
 * A relayed Messages stream (the Anthropic door's same-vendor lane) after its first event: the
 * upstream's events go to the client unchanged while the gateway tallies what it accounts (the
 * model and usage of message_start and message_delta, an `error` event's failure, the characters
 * of the rest for an estimate), and its end accounts that tally and finishes the run once, however
 * the stream ends (read to its end, returned early by the writer, or closed by the edge).
 */
export class RelayStream implements OpenWork {
  readonly #run: RequestRun;
  readonly #deps: GatewayDeps;
  readonly #success: RelayFirstEvent;
  readonly #texts: () => readonly string[];
  readonly #iterator: AsyncIterator<RelayedEvent>;
  #pending: IteratorResult<RelayedEvent> | undefined;
  #model: string;
  #usage: ReportedUsage | undefined;
  #finishReason: FinishReason | undefined;
  #failure: ProviderError | undefined;
  #relayedChars = 0;
  #ending: Promise<ApiError | undefined> | undefined;

  constructor(run: RequestRun, deps: GatewayDeps, success: RelayFirstEvent, texts: () => readonly string[]) {
    this.#run = run;
    this.#deps = deps;
    this.#success = success;
    this.#texts = texts;
    this.#iterator = success.value.iterator;
    this.#pending = success.value.first;
    this.#model = success.candidate.model;
  }

  /** The upstream's events as they come; returned early, the client left. */
  async *events(): AsyncGenerator<RelayOut, void, undefined> {
    let cause: unknown;
    let completed = false;
    let error: ApiError | undefined;
    try {
      for (;;) {
        const next = this.#pending ?? (await this.#iterator.next());
        this.#pending = undefined;
        if (next.done) {
          completed = true;
          break;
        }
        yield this.#take(next.value);
      }
    } catch (thrown) {
      cause = thrown;
    } finally {
      error = await this.end(completed ? undefined : (cause ?? new ClientClosedError()));
    }
    // An upstream `error` event was relayed as it came; only a failure it did not announce is written.
    if (error !== undefined && !(error instanceof ClientClosedError) && this.#failure === undefined)
      yield { kind: 'error', error: error.toEnvelope() };
  }

  /** Accounts the stream and finishes the run, once; the error it finished with, if any. */
  end(cause: unknown): Promise<ApiError | undefined> {
    this.#ending ??= this.#finish(cause);
    return this.#ending;
  }

  async #finish(cause: unknown): Promise<ApiError | undefined> {
    const run = this.#run;
    const provider = this.#success.candidate.provider;
    let error: ApiError | undefined;
    if (cause instanceof ClientClosedError || run.signal.aborted) error = new ClientClosedError();
    else if (cause !== undefined) error = midStreamError(cause, provider);
    else if (this.#failure !== undefined) error = midStreamError(this.#failure, provider);
    let drained = true;
    if (error instanceof ClientClosedError) {
      run.clientLeft();
      drained = await drainStream(this.#iterator, this.#pending, (event) => this.#take(event));
      this.#pending = undefined;
    }
    run.markDone();
    const texts = this.#texts;
    const outputTokens = Math.ceil(this.#relayedChars / 4);
    await run.account({
      provider,
      adapter: this.#success.adapter,
      model: this.#model,
      reported: this.#usage,
      estimate: async (tokenizer) => ({
        inputTokens: await countOrGuess(() => tokenizer.count(texts()), texts),
        outputTokens,
      }),
      startedAt: this.#success.startedAt,
      outcome:
        error === undefined ? 'ok' : error instanceof ClientClosedError ? 'client_closed' : 'stream_failed',
      finishReason: this.#finishReason,
    });
    run.finish(error);
    if (drained) await this.#iterator.return?.();
    else void this.#iterator.return?.()?.catch(() => {});
    return error;
  }

  #take(event: RelayedEvent): RelayOut {
    if (event.model !== undefined) this.#model = event.model;
    if (event.usage !== undefined) this.#usage = event.usage;
    if (event.finishReason !== undefined) this.#finishReason = event.finishReason;
    if (event.failure !== undefined) this.#failure = event.failure;
    this.#relayedChars += event.data.length;
    const out: RelayOut = { kind: 'event', event: event.event, data: event.data };
    if (event.carriesCost === true) out.costUsd = this.#costSoFar();
    return out;
  }

  /**
   * The request's cost with this stream's usage as it stands: what the earlier attempts cost plus
   * this answer priced as the run will price it when the stream ends (the same usage, the same
   * price), so that the figure the client reads is the ledger's.
   */
  #costSoFar(): number {
    const earlier = this.#run.usage().estimatedCost;
    if (this.#usage === undefined) return earlier;
    const { price } = this.#deps.priceBook.resolve(this.#success.adapter.kind, this.#model);
    return roundCost(earlier + priceUsage(this.#usage, price));
  }
}
