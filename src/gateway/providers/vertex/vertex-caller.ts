import type { EventSourceMessage } from 'eventsource-parser';
import type { ProviderSlot } from '../../../config/config-types.ts';
import { mapAnthropicHttpError } from '../anthropic/anthropic-error.ts';
import type { UpstreamAuth } from '../cloud-auth.ts';
import { geminiHttpError } from '../gemini/gemini-error.ts';
import { type BufferedResponse, isSuccess, safeJson, type UpstreamHttp } from '../http/upstream-http.ts';
import { isRecord } from '../json-guards.ts';
import type { CallContext } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { upstreamRejectionOf } from '../upstream-message.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Vertex AI's transport for one slot or deployment: the project's and location's path prefix, a
 * bearer token from the slot's Google identity on every request (cached, google-token-source.ts),
 * and errors read as the body says: Anthropic's `{type: "error", error: {type}}` from a Claude
 * model, Google's `{error: {code, status}}` from anything else (quota, auth, Gemini).
 */
export class VertexCaller {
  readonly slot: ProviderSlot;
  readonly #http: UpstreamHttp;
  readonly #auth: UpstreamAuth;
  /** `/v1/projects/<p>/locations/<l>/publishers`. */
  readonly publishers: string;

  constructor(slot: ProviderSlot, http: UpstreamHttp, auth: UpstreamAuth, project: string, location: string) {
    this.slot = slot;
    this.#http = http;
    this.#auth = auth;
    this.publishers = `/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers`;
  }

  get http(): UpstreamHttp {
    return this.#http;
  }

  async send(
    path: string,
    body: { json?: unknown; written?: Buffer },
    context: CallContext,
    extra: Record<string, string> = {},
  ): Promise<BufferedResponse> {
    const headers = { ...extra, ...(await this.#auth.headers(signable(path))) };
    const response = await this.#http.send({ path, headers, ...bodyOf(body), signal: context.signal });
    if (!isSuccess(response.status)) throw this.error(response.status, response.headers, response.text);
    return response;
  }

  async openEvents(
    path: string,
    body: { json?: unknown; written?: Buffer },
    context: CallContext,
    extra: Record<string, string> = {},
  ): Promise<AsyncIterable<EventSourceMessage>> {
    const headers = { accept: 'text/event-stream', ...extra, ...(await this.#auth.headers(signable(path))) };
    const opened = await this.#http.openStream({ path, headers, ...bodyOf(body), signal: context.signal });
    if (opened.kind === 'events') return opened.events;
    const { response } = opened;
    throw this.error(response.status, response.headers, response.text);
  }

  error(status: number, headers: Headers, text: string): ProviderError {
    const body = safeJson(text);
    if (!isRecord(body) || body['type'] !== 'error') return geminiHttpError(this.slot, status, headers, text);
    // Vertex answers Claude's overflow as a 413 "Prompt is too long" where Anthropic answers a 400:
    // it is read as the 400 it means, so that each door answers it in its overflow form (CONTRACT 6.1).
    const overflow = status === 413 && upstreamRejectionOf(400, body).overflow !== undefined;
    return mapAnthropicHttpError(this.slot, overflow ? 400 : status, headers, text);
  }
}

/** A bearer token signs nothing of the request; the auth interface still takes it. */
function signable(path: string) {
  return {
    method: 'POST' as const,
    url: new URL(`http://vertex${path}`),
    headers: {},
    body: Buffer.alloc(0),
  };
}

function bodyOf(body: { json?: unknown; written?: Buffer }): { body?: unknown; written?: Buffer } {
  return body.written === undefined ? { body: body.json } : { written: body.written };
}
