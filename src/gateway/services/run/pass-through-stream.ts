import type { ErrorEnvelope } from '../../../platform/errors.ts';
import { priceUsage, roundCost } from '../../domain/pricing.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import type { RelayedEvent } from '../../providers/messages-relay.ts';
import type { ProviderError } from '../../providers/provider-error.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { countOrGuess } from './count-or-guess.ts';
import { type FirstEvent, HeldStream } from './held-stream.ts';
import type { RequestRun } from './request-run.ts';

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
export type PassThroughFirstEvent = FirstEvent<RelayedEvent>;

/**
 * A same-vendor lane's stream after its first event (held-stream.ts): the upstream's events go to
 * the client unchanged while the gateway tallies what it accounts (the model and usage the relay
 * read from them, an `error` event's failure, the characters of the rest for an estimate). An
 * upstream `error` event is relayed as it came; only a failure it did not announce is written.
 */
export class PassThroughStream extends HeldStream<RelayedEvent, RelayOut> {
  readonly #deps: GatewayDeps;
  readonly #texts: () => readonly string[];
  #failure: ProviderError | undefined;
  #relayedChars = 0;

  constructor(
    run: RequestRun,
    deps: GatewayDeps,
    success: PassThroughFirstEvent,
    texts: () => readonly string[],
  ) {
    super(run, success);
    this.#deps = deps;
    this.#texts = texts;
  }

  /** The upstream's events as they come; returned early, the client left. */
  async *events(): AsyncGenerator<RelayOut, void, undefined> {
    const error = yield* this.read();
    if (error !== undefined && !(error instanceof ClientClosedError) && this.#failure === undefined)
      yield { kind: 'error', error: error.toEnvelope() };
  }

  protected override announcedFailure(): unknown {
    return this.#failure;
  }

  protected override async estimate(tokenizer: Tokenizer): Promise<ReportedUsage> {
    const texts = this.#texts;
    return {
      inputTokens: await countOrGuess(() => tokenizer.count(texts()), texts),
      outputTokens: Math.ceil(this.#relayedChars / 4),
    };
  }

  protected override take(event: RelayedEvent): RelayOut {
    if (event.model !== undefined) this.model = event.model;
    if (event.usage !== undefined) this.usage = event.usage;
    if (event.finishReason !== undefined) this.finishReason = event.finishReason;
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
    const earlier = this.run.usage().estimatedCost;
    if (this.usage === undefined) return earlier;
    const { price } = this.#deps.priceBook.resolve(this.success.adapter.kind, this.model);
    return roundCost(earlier + priceUsage(this.usage, price));
  }
}
