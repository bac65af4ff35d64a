import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import type { ProviderSlot, ProviderTimeouts } from '../../../config/config-types.ts';
import { type JsonThread, sharedJsonThread } from '../../../platform/json-thread/json-thread.ts';
import { ProviderError } from '../provider-error.ts';
import { type BufferedResponse, BufferingHandler } from './buffering-handler.ts';
import {
  EventStreamHandler,
  type EventStreamLimits,
  type FramingFactory,
  type OpenedStream,
  type ReadWhole,
} from './event-stream-handler.ts';
import { currentTraceHeaders } from './trace-headers.ts';
import { upstreamBody } from './upstream-body.ts';

export type { BufferedResponse, OpenedStream };

/**
 * undici's Agent and its error classes, from their own files: the package's index also loads
 * fetch, WebSocket, the cache and the mock agent (about 100 files and 10 MB of RSS) that the
 * gateway never uses. The package has no `exports` map, so these paths are public; the
 * upstream tests fail at once if a release moves them.
 */
const requireCommonJs = createRequire(import.meta.url);
const Agent = requireCommonJs('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
const errors = requireCommonJs('undici/lib/core/errors.js') as typeof Undici.errors;

/** What `#dispatch` needs of a handler: a way to stop it, and a hook for when it is over. */
interface CallHandler extends Dispatcher.DispatchHandler {
  abort(reason: Error): void;
  onSettled: () => void;
}

/** 2xx: the only answers whose body is what was asked for. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

const isNotSuccess = (status: number) => !isSuccess(status);

/** A whole answer larger than this is refused rather than held in memory. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** What is read of an error body: enough for any vendor's error type and message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/**
 * One server-sent event larger than this (in characters) fails the stream. Vendors send a few
 * hundred characters per event; 8 Mi leaves room for a server that sends a whole long answer as
 * one event, and bounds what a line that never ends can hold (16 MB at two bytes a character).
 */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

export interface UpstreamRequest {
  method?: 'GET' | 'POST';
  /** Appended to the base URL as given (the base URL's own path is kept). */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A body already written as JSON, sent as it is (the Anthropic door's same-vendor lane); wins over `body`. */
  written?: string | Buffer;
  signal: AbortSignal;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The HTTP client of one provider slot: one keep-alive connection pool (undici Agent) per slot,
 * with connect and first-byte timeouts from the slot's settings and a total time limit per call.
 * Transport failures become ProviderError (`timeout`, `connection`, `aborted`); HTTP statuses are
 * left to the adapter, which knows its vendor's error bodies.
 */
export class UpstreamHttp {
  readonly #slot: ProviderSlot;
  readonly #origin: string;
  /** The base URL's own path, without a trailing slash; request paths are appended to it. */
  readonly #basePath: string;
  readonly #timeouts: ProviderTimeouts;
  readonly #dispatcher: Dispatcher;
  readonly #limits: EventStreamLimits;
  readonly #jsonThread: JsonThread;

  constructor(
    slot: ProviderSlot,
    baseUrl: string,
    timeouts: ProviderTimeouts,
    dispatcher?: Dispatcher,
    jsonThread: JsonThread = sharedJsonThread(),
  ) {
    this.#slot = slot;
    this.#jsonThread = jsonThread;
    // Parsed once here rather than on every request.
    const url = new URL(baseUrl.replace(/\/+$/, ''));
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#timeouts = timeouts;
    this.#dispatcher =
      dispatcher ??
      new Agent({
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.firstByteMs,
        // Longest silence allowed between two chunks of a body (streams included).
        bodyTimeout: timeouts.firstByteMs,
        keepAliveTimeout: 30_000,
        connections: 256,
      });
    this.#limits = {
      successBytes: MAX_ANSWER_BYTES,
      errorBytes: MAX_ERROR_BODY_BYTES,
      tooLarge: (limit) =>
        new ProviderError({
          slot,
          failure: 'invalid_response',
          detail: `answer larger than ${limit} bytes`,
        }),
      eventChars: MAX_EVENT_CHARS,
      eventTooLarge: (limit) =>
        new ProviderError({
          slot,
          failure: 'invalid_response',
          detail: `stream event larger than ${limit} characters`,
        }),
    };
  }

  /**
   * Sends a request and reads the whole answer: all of a 2xx body (up to 256 MiB), the first
   * 64 KiB of any other, which is enough for the adapter's error mapper. Rejects with
   * ProviderError on transport failure, when the caller's signal aborts, or at the total time
   * limit.
   */
  send(request: UpstreamRequest): Promise<BufferedResponse> {
    return this.#dispatch(request, (resolve, fail) => new BufferingHandler(this.#limits, resolve, fail));
  }

  /**
   * Sends a request whose answer is a stream of server-sent events. Resolves at the answer's
   * headers with its events as they arrive, or, where `readWhole` says so (by default, for any
   * status but 2xx), once the whole body is read, with the same limits as `send`. Reading the
   * events rejects with ProviderError on transport failure, caller abort or the total time
   * limit, which runs until the last event; a reader that stops early drops the connection.
   */
  openStream(
    request: UpstreamRequest,
    readWhole: ReadWhole = isNotSuccess,
    framing?: FramingFactory,
  ): Promise<OpenedStream> {
    return this.#dispatch(
      request,
      (open, fail) =>
        new EventStreamHandler(this.#limits, readWhole, {
          open,
          fail,
          mapError: (error) => this.transportError(error, request.signal),
          framing,
        }),
    );
  }

  /**
   * Dispatches a call to a handler that settles `resolve` or `fail` once. One listener on the
   * caller's signal and one cleared timer per call: `AbortSignal.any([signal,
   * AbortSignal.timeout(totalMs)])` would cost as much in weak references and finalizers, and
   * each of its timers would stay alive for the whole `totalMs` (two minutes by default) after
   * the call ended, which under load holds hundreds of megabytes.
   */
  #dispatch<T>(
    request: UpstreamRequest,
    create: (resolve: (value: T) => void, fail: (error: unknown) => void) => CallHandler,
  ): Promise<T> {
    if (request.signal.aborted) return Promise.reject(this.#aborted(request.signal));
    // Written first: a body that cannot be serialised throws before any timer or listener exists.
    // A relayed body goes as the client wrote it; any other as JSON, a long one written on the
    // JSON thread (upstream-body.ts), a long history as bytes written piece by piece, never one
    // large string (json-body-bytes.ts).
    const body =
      request.written ??
      (request.body === undefined ? undefined : upstreamBody(request.body, this.#jsonThread));
    if (body instanceof Promise)
      return body.then((written) =>
        // The caller may have left while the body was written.
        request.signal.aborted
          ? Promise.reject(this.#aborted(request.signal))
          : this.#dispatchWritten(request, written, create),
      );
    return this.#dispatchWritten(request, body, create);
  }

  #dispatchWritten<T>(
    request: UpstreamRequest,
    body: string | Buffer | undefined,
    create: (resolve: (value: T) => void, fail: (error: unknown) => void) => CallHandler,
  ): Promise<T> {
    const caller = request.signal;
    const options = this.#dispatchOptions(request, body);
    return new Promise((resolve, reject) => {
      const handler = create(resolve, (error) => reject(this.transportError(error, caller)));
      handler.onSettled = this.#bound(caller, (reason) => handler.abort(reason));
      this.#dispatcher.dispatch(options, handler);
    });
  }

  #aborted(caller: AbortSignal): ProviderError {
    return new ProviderError({ slot: this.#slot, failure: 'aborted', cause: caller.reason });
  }

  /**
   * Stops a call (`abort`) when the caller's signal aborts or the total time limit passes;
   * returns what releases the timer and the listener once the call is over.
   */
  #bound(caller: AbortSignal, abort: (reason: Error) => void): () => void {
    const onCallerAbort = () => abort(abortReason(caller));
    caller.addEventListener('abort', onCallerAbort, { once: true });
    const timer = setTimeout(() => abort(totalTimeLimit()), this.#timeouts.totalMs);
    timer.unref();
    return () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', onCallerAbort);
    };
  }

  /** The JSON of a whole 2xx answer; a body that is not JSON is an invalid response. */
  parseJson(response: BufferedResponse): unknown {
    const value = safeJson(response.text);
    if (value === undefined) throw this.#notJson(response.status);
    return value;
  }

  #dispatchOptions(request: UpstreamRequest, body: string | Buffer | undefined): Dispatcher.DispatchOptions {
    let headers: Record<string, string> =
      body === undefined
        ? (request.headers ?? {})
        : { 'content-type': 'application/json', ...request.headers };
    // The traced attempt's context goes upstream (W3C Trace Context), whatever the adapter.
    const trace = currentTraceHeaders();
    if (trace !== undefined) headers = { ...headers, ...trace };
    return {
      origin: this.#origin,
      path: this.#basePath + request.path,
      method: request.method ?? 'POST',
      headers,
      body: body ?? null,
    };
  }

  #notJson(status: number): ProviderError {
    return new ProviderError({
      slot: this.#slot,
      failure: 'invalid_response',
      status,
      detail: 'body is not JSON',
    });
  }

  /** Maps a transport failure to a ProviderError; the caller's own abort is `aborted`, never the upstream's fault. */
  transportError(error: unknown, callerSignal: AbortSignal): ProviderError {
    if (error instanceof ProviderError) return error;
    const slot = this.#slot;
    if (callerSignal.aborted) return new ProviderError({ slot, failure: 'aborted', cause: error });
    if (
      error instanceof errors.ConnectTimeoutError ||
      error instanceof errors.HeadersTimeoutError ||
      error instanceof errors.BodyTimeoutError ||
      (error instanceof DOMException && error.name === 'TimeoutError') ||
      (error as { name?: string }).name === 'TimeoutError'
    ) {
      return new ProviderError({ slot, failure: 'timeout', detail: timeoutDetail(error), cause: error });
    }
    if ((error as { name?: string }).name === 'AbortError') {
      return new ProviderError({
        slot,
        failure: 'timeout',
        detail: 'total time limit reached',
        cause: error,
      });
    }
    const code = (error as { code?: string }).code;
    return new ProviderError({
      slot,
      failure: 'connection',
      detail: code ?? 'connection failed',
      cause: error,
    });
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}

/** The caller's own reason, or the one `AbortController.abort()` gives when none was passed. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('This operation was aborted', 'AbortError');
}

/** The same reason `AbortSignal.timeout` gives, so the failure maps to `timeout` as it always did. */
function totalTimeLimit(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

function timeoutDetail(error: unknown): string {
  if (error instanceof errors.ConnectTimeoutError) return 'connect timeout';
  if (error instanceof errors.HeadersTimeoutError) return 'no response headers in time';
  if (error instanceof errors.BodyTimeoutError) return 'the body stalled';
  return 'total time limit reached';
}
