import { TextDecoder } from 'node:util';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { type BufferedResponse, BufferingHandler, type BufferingLimits } from './buffering-handler.ts';

type Headers = Record<string, string | string[] | undefined>;

/** What a streamed call opens onto: its events as they arrive, or the whole body (errors, JSON answers). */
export type OpenedStream =
  | { kind: 'events'; status: number; headers: Headers; events: AsyncIterable<EventSourceMessage> }
  | { kind: 'whole'; response: BufferedResponse };

/** Decides from the status and headers whether an answer is read whole instead of as events. */
export type ReadWhole = (status: number, headers: Headers) => boolean;

/**
 * A framing other than server-sent events (AWS's binary event stream): it is fed the body's
 * bytes and pushes each message it completes, as an event whose `event` names its type.
 */
export interface EventFraming {
  feed(chunk: Buffer): void;
  /** The body ended: a frame left unfinished is a failure. */
  end(): void;
}

export type FramingFactory = (
  push: (event: EventSourceMessage) => void,
  fail: (error: Error) => void,
) => EventFraming;

export interface EventStreamCallbacks {
  /** The call opened: at the answer's headers for events, at its end for a whole body. */
  open: (opened: OpenedStream) => void;
  /** The call failed before it opened. */
  fail: (error: unknown) => void;
  /** Turns a transport failure met while the events are read into the error the reader sees. */
  mapError: (error: unknown) => Error;
  /** The body's framing when it is not server-sent events. */
  framing?: FramingFactory | undefined;
}

/**
 * The stream's limits: a whole answer's (for an answer read whole) and one event's. An upstream
 * that never ends a line, or never ends an event, would otherwise grow the parser's buffer until
 * the total time limit, at whatever rate it can send.
 */
export interface EventStreamLimits extends BufferingLimits {
  /** Characters one event may hold (its unfinished line and the data lines before it). */
  eventChars: number;
  eventTooLarge: (limit: number) => Error;
}

/** Parsed events waiting for the reader past which the socket is paused. */
const HIGH_WATER_EVENTS = 256;

/**
 * An undici dispatch handler for server-sent events: the body's bytes go straight into the SSE
 * parser and its events to the reader, with no Readable stream, async resource or per-chunk
 * async iterator in between (`dispatcher.request()` plus `for await` over its body cost a few
 * microtasks and allocations per chunk). Bytes are decoded as a stream, so a character split
 * across two chunks comes out whole.
 *
 * An answer the caller wants whole (an error status, a JSON body where events were asked for)
 * is handed to a BufferingHandler instead, with the same limits as `send`.
 *
 * The handler is its own async iterator. The call is over, and `onSettled` runs once, when the
 * stream ends, fails, is aborted or the reader stops early (which drops the connection, as an
 * unread body must not be left on a pooled socket).
 */
export class EventStreamHandler
  implements Dispatcher.DispatchHandler, AsyncIterableIterator<EventSourceMessage>
{
  readonly #limits: EventStreamLimits;
  readonly #readWhole: ReadWhole;
  readonly #callbacks: EventStreamCallbacks;
  #onSettled: (() => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #whole: BufferingHandler | undefined;
  #opened = false;
  #settled = false;
  /** Set once the body is read to the end (`done`) or failed (`error`). */
  #ended = false;
  #error: unknown;
  readonly #queue: EventSourceMessage[] = [];
  #waiter:
    | { resolve: (result: IteratorResult<EventSourceMessage>) => void; reject: (error: Error) => void }
    | undefined;
  #parser: EventSourceParser | undefined;
  #decoder: TextDecoder | undefined;
  #frames: EventFraming | undefined;

  constructor(limits: EventStreamLimits, readWhole: ReadWhole, callbacks: EventStreamCallbacks) {
    this.#limits = limits;
    this.#readWhole = readWhole;
    this.#callbacks = callbacks;
  }

  /** Runs once when the call is over (clears the caller's timer and listener). */
  set onSettled(callback: () => void) {
    this.#onSettled = callback;
  }

  /** Stops the call: before it opened the open fails with `reason`, after it the reader gets it. */
  abort(reason: Error): void {
    if (this.#whole !== undefined) {
      this.#whole.abort(reason);
      return;
    }
    if (this.#settled) return;
    this.#abortReason = reason;
    if (this.#opened) this.#end(reason);
    else {
      this.#settle();
      this.#callbacks.fail(reason);
    }
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    // 1xx answers are informational; the real one follows.
    if (statusCode < 200 || this.#settled) return;
    if (this.#readWhole(statusCode, headers)) {
      const whole = new BufferingHandler(
        this.#limits,
        (response) => this.#callbacks.open({ kind: 'whole', response }),
        (error) => this.#callbacks.fail(error),
      );
      whole.onSettled = () => this.#settle();
      whole.onRequestStart(controller);
      whole.onResponseStart(controller, statusCode, headers);
      this.#whole = whole;
      return;
    }
    this.#opened = true;
    const framing = this.#callbacks.framing;
    if (framing !== undefined) {
      this.#frames = framing(
        (event) => this.#push(event),
        (error) => this.#fail(error),
      );
      this.#callbacks.open({ kind: 'events', status: statusCode, headers, events: this });
      return;
    }
    this.#decoder = new TextDecoder('utf-8');
    this.#parser = createParser({
      onEvent: (event) => this.#push(event),
      onError: (error) => {
        // The others (an unknown field, a bad `retry`) are skipped, as the SSE specification says.
        if (error.type === 'max-buffer-size-exceeded')
          this.#fail(this.#limits.eventTooLarge(this.#limits.eventChars));
      },
      maxBufferSize: this.#limits.eventChars,
    });
    this.#callbacks.open({ kind: 'events', status: statusCode, headers, events: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#whole !== undefined) {
      this.#whole.onResponseData(controller, chunk);
      return;
    }
    if (this.#ended) return;
    if (this.#frames !== undefined) this.#frames.feed(chunk);
    else if (this.#parser !== undefined)
      this.#parser.feed((this.#decoder as TextDecoder).decode(chunk, { stream: true }));
    else return;
    // A reader slower than the upstream: stop reading the socket until it catches up.
    if (this.#queue.length >= HIGH_WATER_EVENTS && !controller.paused) controller.pause();
  }

  onResponseEnd(): void {
    if (this.#whole !== undefined) {
      this.#whole.onResponseEnd();
      return;
    }
    if (this.#ended) return;
    if (this.#frames !== undefined) {
      this.#frames.end();
      this.#end(undefined);
      return;
    }
    if (this.#parser === undefined) return;
    // What the decoder held back; an event without its closing blank line is dropped, as the
    // SSE specification says.
    this.#parser.feed((this.#decoder as TextDecoder).decode());
    this.#end(undefined);
  }

  onResponseError(controller: Dispatcher.DispatchController | null, error: Error): void {
    if (this.#whole !== undefined) {
      this.#whole.onResponseError(controller, error);
      return;
    }
    if (this.#settled) return;
    if (this.#opened) this.#end(error);
    else {
      this.#settle();
      this.#callbacks.fail(error);
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<EventSourceMessage>> {
    const event = this.#queue.shift();
    if (event !== undefined) {
      if (this.#queue.length === 0 && this.#controller?.paused === true) this.#controller.resume();
      return Promise.resolve({ value: event, done: false });
    }
    if (this.#ended) return this.#finalResult();
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** The reader stopped early (client gone, adapter done): the rest of the body is not read. */
  return(): Promise<IteratorResult<EventSourceMessage>> {
    this.#queue.length = 0;
    if (!this.#ended) this.#fail(new Error('the reader stopped before the end of the stream'));
    this.#error = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  #push(event: EventSourceMessage): void {
    const waiter = this.#waiter;
    if (waiter === undefined) {
      this.#queue.push(event);
      return;
    }
    this.#waiter = undefined;
    waiter.resolve({ value: event, done: false });
  }

  /** The handler itself gave up on the body: the reader gets `error`, the connection is dropped. */
  #fail(error: Error): void {
    this.#end(error);
    this.#controller?.abort(error);
  }

  /** The body is over: read to the end (`error` undefined) or failed. */
  #end(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#settle();
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    // Events still queued were handed out first; a waiting reader has none left.
    this.#finalResult().then(waiter.resolve, waiter.reject);
  }

  /** Done, or the failure, once; later calls are done. */
  #finalResult(): Promise<IteratorResult<EventSourceMessage>> {
    const error = this.#error;
    if (error === undefined) return Promise.resolve({ value: undefined, done: true });
    this.#error = undefined;
    return Promise.reject(this.#callbacks.mapError(error));
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onSettled?.();
  }
}
