import type { FinishReason } from '../domain/messages.ts';
import type { ReportedUsage } from '../domain/reported-usage.ts';
import type { CallContext } from './provider.ts';
import type { ProviderError } from './provider-error.ts';

/**
 * The Anthropic door's same-vendor lane (CONTRACT 5.2): a Messages request sent upstream as the
 * client wrote it, and its answer relayed as the upstream wrote it. Only an `anthropic` slot's
 * adapter has it (`ProviderAdapter.relay`); the gateway reads from the answer only what it
 * accounts (model, usage, why it stopped), never changing it.
 */
export interface MessagesRelayCall {
  /** The upstream's model name, put in place of the client's `model` (the only change). */
  model: string;
  /** The client's body, the bytes it sent. */
  body: Buffer;
  /** Headers forwarded as the client sent them: `anthropic-version`, `anthropic-beta`. */
  headers: Readonly<Record<string, string>>;
}

/** A whole answer: its text as the upstream sent it, and what the gateway reads of it. */
export interface RelayedMessage {
  text: string;
  /** The answer's `model`, else the one asked for. */
  model: string;
  /** Undefined when the answer had no usage the gateway can read: it estimates instead. */
  usage: ReportedUsage | undefined;
  finishReason: FinishReason | undefined;
  /**
   * What the upstream's wire format could not carry and left out (a cloud's unsupported betas, as
   * `anthropic-beta:<name>`), for `x-gateway-ignored-fields` (CONTRACT 6.9).
   */
  ignoredFields?: string[];
}

/**
 * One event of a relayed stream, `event` and `data` as the upstream sent them. The events that
 * carry the answer's facts (message_start, message_delta, error) have them read: `model`, the
 * usage so far (cumulative: message_delta's counts replace message_start's), why it stopped, and
 * for an `error` event the failure it means.
 */
export interface RelayedEvent {
  event: string;
  data: string;
  model?: string;
  usage?: ReportedUsage;
  finishReason?: FinishReason;
  failure?: ProviderError;
  /**
   * The event where the client is told the request's cost (Anthropic's `message_delta`, whose
   * `usage` gains `cost_usd`): the relay says which, the door's frames say how.
   */
  carriesCost?: boolean;
  /** On a stream's first event: what the cloud's wire format left out, as RelayedMessage's. */
  ignoredFields?: string[];
}

export interface MessagesRelay {
  /** A non-streamed Messages request; rejects with ProviderError as `chat` does. */
  message(call: MessagesRelayCall, context: CallContext): Promise<RelayedMessage>;
  /**
   * A streamed one (the body says `stream: true`): its events as they arrive; rejects as
   * `streamChat` does (an error status before the first event, a transport failure).
   */
  stream(call: MessagesRelayCall, context: CallContext): AsyncIterable<RelayedEvent>;
}
