import type { Dispatcher } from 'undici';

/**
 * A whole upstream answer, read into memory: all of the body for a 2xx answer, at most the error
 * limit of any other. The body is decoded to text on first use only, so a caller that reads the
 * bytes (embeddings' number arrays, embedding-arrays.ts) never pays for decoding it.
 */
export class BufferedResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  #text: string | undefined;

  constructor(status: number, headers: Record<string, string | string[] | undefined>, body: Buffer) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /** The body as UTF-8 text. */
  get text(): string {
    this.#text ??= this.body.toString('utf8');
    return this.#text;
  }
}

export interface BufferingLimits {
  /** A 2xx body larger than this fails the call (`tooLarge`). */
  successBytes: number;
  /** Only this much of an error body is kept; the connection is dropped after it. */
  errorBytes: number;
  tooLarge: (limit: number) => Error;
}

/**
 * An undici dispatch handler that collects the whole answer, for the calls that read every byte
 * before doing anything with it (chat, JSON, embeddings). `dispatcher.request()` gives each call
 * an async resource, a Readable stream for the body and a promise chain to read it back into one
 * string; measured with `npm run bench` that machinery cost about 17 µs of CPU per request.
 *
 * The promise settles once: with the answer, with the first error, or at `abort` (the caller
 * left, the time limit passed), whichever comes first; undici's later callbacks are ignored.
 */
export class BufferingHandler implements Dispatcher.DispatchHandler {
  readonly #limits: BufferingLimits;
  readonly #resolve: (response: BufferedResponse) => void;
  readonly #reject: (error: unknown) => void;
  #onSettled: (() => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #limit = 0;
  #bytes = 0;
  readonly #chunks: Buffer[] = [];

  constructor(
    limits: BufferingLimits,
    resolve: (response: BufferedResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#limits = limits;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Runs once when the promise settles (clears the caller's timer and listener). */
  set onSettled(callback: () => void) {
    this.#onSettled = callback;
  }

  /** Stops the call: the promise rejects with `reason` now, the request when undici starts it. */
  abort(reason: Error): void {
    if (this.#settled) return;
    this.#abortReason = reason;
    this.#fail(reason);
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers are informational; the real one follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
    this.#limit = statusCode < 300 ? this.#limits.successBytes : this.#limits.errorBytes;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    const room = this.#limit - this.#bytes;
    if (chunk.length <= room) {
      this.#chunks.push(chunk);
      this.#bytes += chunk.length;
      return;
    }
    if (this.#status < 300) {
      const error = this.#limits.tooLarge(this.#limit);
      this.#fail(error);
      controller.abort(error);
      return;
    }
    // Enough of an error body to find its type and message; the rest is not worth reading.
    this.#chunks.push(chunk.subarray(0, room));
    this.#finish();
    controller.abort(new Error('error body read up to its limit'));
  }

  onResponseEnd(): void {
    this.#finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#fail(error);
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settle();
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    this.#resolve(new BufferedResponse(this.#status, this.#headers, body));
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.#onSettled?.();
  }
}
