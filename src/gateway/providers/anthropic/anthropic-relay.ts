import type { ProviderSlot } from '../../../config/config-types.ts';
import { replaceTopLevelValue } from '../../domain/json-splice.ts';
import { isSuccess, safeJson, type UpstreamHttp } from '../http/upstream-http.ts';
import { asString, isRecord } from '../json-guards.ts';
import type { MessagesRelay, MessagesRelayCall, RelayedEvent, RelayedMessage } from '../messages-relay.ts';
import type { CallContext, FinishReason } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { mapAnthropicHttpError, mapAnthropicStreamError } from './anthropic-error.ts';
import { mapStopReason } from './anthropic-stop-reason.ts';
import {
  type AnthropicUsageCounts,
  mergeUsageCounts,
  readUsageCounts,
  toReportedUsage,
} from './anthropic-usage.ts';

/** What the relay needs of its slot's adapter. */
export interface AnthropicRelayInit {
  slot: ProviderSlot;
  http: UpstreamHttp;
  apiKey: string | undefined;
  /** The Messages path and the version sent when the client named none. */
  path: string;
  defaultVersion: string;
}

/** The only client headers that go upstream; the client's key never does (the slot's does). */
const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * The same-vendor lane of an `anthropic` slot (CONTRACT 5.2): the client's Messages body goes
 * upstream as its bytes, with `model` replaced by the upstream's name, and `anthropic-version`
 * and `anthropic-beta` as the client sent them; the answer comes back as the upstream sent it.
 * What the gateway accounts (model, usage with the prompt cache's counts, why it stopped) is read
 * from the answer without changing it. Errors map as the adapter's do, so 429 and 5xx are retried
 * and fall over, 400 and 404 are passed on with the upstream's message.
 */
export class AnthropicRelay implements MessagesRelay {
  readonly #init: AnthropicRelayInit;

  constructor(init: AnthropicRelayInit) {
    this.#init = init;
  }

  async message(call: MessagesRelayCall, context: CallContext): Promise<RelayedMessage> {
    const { slot, http, path } = this.#init;
    const response = await http.send({
      path,
      headers: this.#headers(call, false),
      written: withModel(call),
      signal: context.signal,
    });
    if (!isSuccess(response.status))
      throw mapAnthropicHttpError(slot, response.status, response.headers, response.text);
    return readRelayedMessage(slot, response.text, http.parseJson(response), call.model);
  }

  async *stream(call: MessagesRelayCall, context: CallContext): AsyncIterable<RelayedEvent> {
    const { slot, http, path } = this.#init;
    const opened = await http.openStream({
      path,
      headers: this.#headers(call, true),
      written: withModel(call),
      signal: context.signal,
    });
    if (opened.kind !== 'events') {
      const { response } = opened;
      throw mapAnthropicHttpError(slot, response.status, response.headers, response.text);
    }
    yield* readRelayedEvents(slot, opened.events);
  }

  #headers(call: MessagesRelayCall, stream: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'anthropic-version': this.#init.defaultVersion,
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    for (const name of FORWARDED_HEADERS) {
      const value = call.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    if (this.#init.apiKey !== undefined) headers['x-api-key'] = this.#init.apiKey;
    return headers;
  }
}

/** A whole Messages answer as relayed: its text as it came, and what the gateway accounts of it. */
export function readRelayedMessage(
  slot: ProviderSlot,
  text: string,
  json: unknown,
  model: string,
): RelayedMessage {
  if (!isRecord(json))
    throw new ProviderError({ slot, failure: 'invalid_response', detail: 'not a Message' });
  return {
    text,
    model: asString(json['model']) ?? model,
    usage: toReportedUsage(readUsageCounts(json['usage'])),
    finishReason: stopReasonOf(json['stop_reason']),
  };
}

/**
 * A Messages stream's events as relayed, each as it came, with what the gateway accounts read
 * from message_start and message_delta, and an `error` event's failure. Every vendor that serves
 * Claude's Messages stream (Anthropic, Bedrock's InvokeModelWithResponseStream, Vertex's
 * streamRawPredict) is read by this.
 */
export async function* readRelayedEvents(
  slot: ProviderSlot,
  events: AsyncIterable<{ event?: string | undefined; data: string }>,
): AsyncIterable<RelayedEvent> {
  let counts: AnthropicUsageCounts = {};
  for await (const message of events) {
    const event: RelayedEvent = { event: message.event ?? 'message', data: message.data };
    switch (event.event) {
      case 'message_start': {
        const data = safeJson(message.data);
        const start = isRecord(data) && isRecord(data['message']) ? data['message'] : {};
        counts = readUsageCounts(start['usage']);
        const model = asString(start['model']);
        if (model !== undefined) event.model = model;
        withUsage(event, counts);
        break;
      }
      case 'message_delta': {
        event.carriesCost = true;
        const data = safeJson(message.data);
        if (!isRecord(data)) break;
        counts = mergeUsageCounts(counts, readUsageCounts(data['usage']));
        withUsage(event, counts);
        const delta = data['delta'];
        if (isRecord(delta) && delta['stop_reason'] !== undefined && delta['stop_reason'] !== null)
          event.finishReason = stopReasonOf(delta['stop_reason']) as FinishReason;
        break;
      }
      case 'error':
        event.failure = mapAnthropicStreamError(slot, safeJson(message.data));
        break;
    }
    yield event;
  }
}

/** The client's body with the upstream's model name; the body as it is when it already names it. */
function withModel(call: MessagesRelayCall): Buffer {
  return replaceTopLevelValue(call.body, 'model', JSON.stringify(call.model)) ?? call.body;
}

function withUsage(event: RelayedEvent, counts: AnthropicUsageCounts): void {
  const usage = toReportedUsage(counts);
  if (usage !== undefined) event.usage = usage;
}

function stopReasonOf(reason: unknown): FinishReason | undefined {
  return reason === undefined || reason === null ? undefined : mapStopReason(reason, false);
}
