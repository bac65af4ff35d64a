import type { EventSourceMessage } from 'eventsource-parser';
import type { ProviderSlot } from '../../../config/config-types.ts';
import type { UpstreamAuth } from '../cloud-auth.ts';
import { type BufferedResponse, isSuccess, type UpstreamHttp } from '../http/upstream-http.ts';
import type { CallContext } from '../provider.ts';
import { bedrockHttpError } from './bedrock-error.ts';

/** One frame larger than this fails the stream (AWS's own frames are at most 16 MiB). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Bedrock Runtime's transport: each request signed (SigV4, or the API key) over the exact bytes
 * sent, then sent through the slot's pool; a non-2xx answer becomes the ProviderError its
 * `x-amzn-errortype` names. Streams are AWS event-stream frames.
 */
export class BedrockCaller {
  readonly #slot: ProviderSlot;
  readonly #http: UpstreamHttp;
  readonly #auth: UpstreamAuth;
  /** The base URL without a trailing slash: what the signed URL starts with. */
  readonly #base: string;

  constructor(slot: ProviderSlot, http: UpstreamHttp, auth: UpstreamAuth, baseUrl: string) {
    this.#slot = slot;
    this.#http = http;
    this.#auth = auth;
    this.#base = baseUrl.replace(/\/+$/, '');
  }

  async send(path: string, body: Buffer, context: CallContext): Promise<BufferedResponse> {
    const headers = await this.#signed(path, body, 'application/json');
    const response = await this.#http.send({ path, headers, written: body, signal: context.signal });
    if (!isSuccess(response.status))
      throw bedrockHttpError(this.#slot, response.status, response.headers, response.text);
    return response;
  }

  async openFrames(
    path: string,
    body: Buffer,
    context: CallContext,
  ): Promise<AsyncIterable<EventSourceMessage>> {
    // The SDK's frame codec (@smithy/eventstream-codec and @smithy/core's event streams) is loaded
    // by the first stream, not at start-up: an instance without a Bedrock slot never holds it.
    const { awsEventFraming } = await import('./aws-event-frames.ts');
    const headers = await this.#signed(path, body, 'application/vnd.amazon.eventstream');
    const opened = await this.#http.openStream(
      { path, headers, written: body, signal: context.signal },
      (status) => !isSuccess(status),
      awsEventFraming(MAX_FRAME_BYTES),
    );
    if (opened.kind === 'events') return opened.events;
    const { response } = opened;
    throw bedrockHttpError(this.#slot, response.status, response.headers, response.text);
  }

  async #signed(path: string, body: Buffer, accept: string): Promise<Record<string, string>> {
    const headers = { 'content-type': 'application/json', accept };
    const url = new URL(this.#base + path);
    return { ...headers, ...(await this.#auth.headers({ method: 'POST', url, headers, body })) };
  }
}
