import type { EventSourceMessage } from 'eventsource-parser';
import type { ProviderSlot } from '../../../config/config-types.ts';
import { type BufferedResponse, isSuccess, safeJson, type UpstreamHttp } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type { MessagesRelay, MessagesRelayCall, RelayedEvent, RelayedMessage } from '../messages-relay.ts';
import type { CallContext } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { readGeminiAnswer } from './from-gemini-response.ts';
import { geminiErrorFrom, geminiHttpError } from './gemini-error.ts';
import { geminiMethodPath } from './gemini-model.ts';

/**
 * Where a relayed GenerateContentRequest goes: Google's Gemini API with the slot's key
 * (`geminiApiTransport`), or Vertex AI's `publishers/google/models` with the slot's token
 * (vertex/vertex-gemini-transport.ts). Both take the client's bytes and throw a ProviderError for
 * an answer that is not a success.
 */
export interface GeminiTransport {
  slot: ProviderSlot;
  /** A method's whole answer (`generateContent`, `countTokens`). */
  send(model: string, method: string, body: Buffer, context: CallContext): Promise<BufferedResponse>;
  /** `streamGenerateContent?alt=sse`'s events. */
  openEvents(model: string, body: Buffer, context: CallContext): Promise<AsyncIterable<EventSourceMessage>>;
  parseJson(response: BufferedResponse): unknown;
}

/** What the Gemini API's transport needs of its slot's adapter. */
export interface GeminiRelayInit {
  slot: ProviderSlot;
  http: UpstreamHttp;
  apiKey: string | undefined;
}

/** Google's Gemini API: `/v1beta/models/{m}:{method}`, the slot's key in `x-goog-api-key`. */
export function geminiApiTransport(init: GeminiRelayInit): GeminiTransport {
  const { slot, http, apiKey } = init;
  const headers = (accept: string): Record<string, string> =>
    apiKey === undefined ? { accept } : { accept, 'x-goog-api-key': apiKey };
  return {
    slot,
    async send(model, method, body, context) {
      const response = await http.send({
        path: geminiMethodPath(model, method),
        headers: headers('application/json'),
        written: body,
        signal: context.signal,
      });
      if (!isSuccess(response.status))
        throw geminiHttpError(slot, response.status, response.headers, response.text);
      return response;
    },
    async openEvents(model, body, context) {
      const opened = await http.openStream({
        path: `${geminiMethodPath(model, 'streamGenerateContent')}?alt=sse`,
        headers: headers('text/event-stream'),
        written: body,
        signal: context.signal,
      });
      if (opened.kind === 'events') return opened.events;
      const { response } = opened;
      throw geminiHttpError(slot, response.status, response.headers, response.text);
    },
    parseJson: (response) => http.parseJson(response),
  };
}

/**
 * The Gemini door's same-vendor lane (CONTRACT 6.3): the client's GenerateContentRequest goes
 * upstream as its bytes (the model is in the path, so the body is not touched at all: thought
 * signatures, cachedContent, tools and safety settings reach Google byte for byte), by its
 * transport (the Gemini API with the slot's key, or Vertex AI with its token) and with none of the
 * client's headers; the answer comes back as Google sent it. The gateway reads from it only what it accounts: `modelVersion`, `usageMetadata` (the
 * prompt with its cached tokens, the candidates and the thoughts, read as the translating adapter
 * reads them) and the finish reason. A stream is asked for as SSE whatever the client's framing;
 * the door frames it again. Errors map as the adapter's do: 429 and 5xx are retried and fall over.
 */
export class GeminiRelay implements MessagesRelay {
  readonly #transport: GeminiTransport;

  constructor(transport: GeminiTransport) {
    this.#transport = transport;
  }

  async message(call: MessagesRelayCall, context: CallContext): Promise<RelayedMessage> {
    const transport = this.#transport;
    const response = await transport.send(call.model, 'generateContent', call.body, context);
    const answer = readGeminiAnswer(transport.parseJson(response), transport.slot);
    return {
      text: response.text,
      model: answer.modelVersion ?? call.model,
      usage: answer.usage,
      finishReason: answer.finishReason,
    };
  }

  async *stream(call: MessagesRelayCall, context: CallContext): AsyncIterable<RelayedEvent> {
    const slot = this.#transport.slot;
    const events = await this.#transport.openEvents(call.model, call.body, context);
    for await (const message of events) {
      const event: RelayedEvent = { event: message.event ?? 'message', data: message.data };
      const chunk = safeJson(message.data);
      if (isRecord(chunk) && chunk['error'] !== undefined) {
        event.failure = streamFailure(slot, chunk);
      } else if (isRecord(chunk)) {
        const answer = readChunk(chunk, slot);
        if (answer?.modelVersion !== undefined) event.model = answer.modelVersion;
        if (answer?.usage !== undefined) event.usage = answer.usage;
        if (answer?.finishReason !== undefined) {
          event.finishReason = answer.finishReason;
          // The chunk that ends the answer carries the request's cost (`usageMetadata.costUsd`).
          event.carriesCost = true;
        }
      }
      yield event;
    }
  }

  /** countTokens with the client's bytes (the model in the path): Google's answer as it wrote it. */
  async countTokens(model: string, body: Buffer, context: CallContext): Promise<string> {
    return (await this.#transport.send(model, 'countTokens', body, context)).text;
  }
}

/** A chunk the gateway cannot read is passed on all the same; only its accounting is lost. */
function readChunk(chunk: Record<string, unknown>, slot: ProviderSlot) {
  try {
    return readGeminiAnswer(chunk, slot);
  } catch (error) {
    if (error instanceof ProviderError) return undefined;
    throw error;
  }
}

function streamFailure(slot: ProviderSlot, chunk: Record<string, unknown>): ProviderError {
  const error = chunk['error'];
  const code = isRecord(error) ? error['code'] : undefined;
  const status = typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 ? code : 500;
  return geminiErrorFrom(slot, status, {}, chunk);
}
