import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { EventSourceMessage } from 'eventsource-parser';
import type { EventFraming, FramingFactory } from '../http/event-stream-handler.ts';

/**
 * AWS's binary event stream (`application/vnd.amazon.eventstream`), as Bedrock's ConverseStream
 * and InvokeModelWithResponseStream send it: frames of a 4-byte total length, headers and a
 * payload, each checked by the SDK's own codec (prelude and message CRC32). A frame becomes one
 * event: `event` its `:event-type` (an `exception`/`error` frame: `exception`, with `id` its
 * `:exception-type` or `:error-code`), `data` its payload as text.
 */
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A frame's prelude: total length (4 bytes), headers length (4), prelude CRC (4). */
const PRELUDE_BYTES = 12;

export function awsEventFraming(maxFrameBytes: number): FramingFactory {
  return (push, fail) => new AwsEventFrames(maxFrameBytes, push, fail);
}

class AwsEventFrames implements EventFraming {
  readonly #maxFrameBytes: number;
  readonly #push: (event: EventSourceMessage) => void;
  readonly #fail: (error: Error) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #failed = false;

  constructor(max: number, push: (event: EventSourceMessage) => void, fail: (error: Error) => void) {
    this.#maxFrameBytes = max;
    this.#push = push;
    this.#fail = fail;
  }

  feed(chunk: Buffer): void {
    if (this.#failed) return;
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    let buffer = this.#pending.length === 1 ? chunk : Buffer.concat(this.#pending);
    while (buffer.length >= PRELUDE_BYTES) {
      const total = buffer.readUInt32BE(0);
      if (total < PRELUDE_BYTES + 4 || total > this.#maxFrameBytes) {
        this.#stop(new Error(`event-stream frame of ${total} bytes is out of bounds`));
        return;
      }
      if (buffer.length < total) break;
      const frame = buffer.subarray(0, total);
      buffer = buffer.subarray(total);
      let event: EventSourceMessage;
      try {
        event = toEvent(codec.decode(frame));
      } catch (error) {
        this.#stop(error instanceof Error ? error : new Error('event-stream frame is malformed'));
        return;
      }
      this.#push(event);
    }
    this.#pending = buffer.length === 0 ? [] : [buffer];
    this.#pendingBytes = buffer.length;
  }

  end(): void {
    if (this.#pendingBytes > 0 && !this.#failed)
      this.#stop(new Error('the event stream ended inside a frame'));
  }

  #stop(error: Error): void {
    this.#failed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#fail(error);
  }
}

type Decoded = ReturnType<typeof codec.decode>;

function toEvent(message: Decoded): EventSourceMessage {
  const header = (name: string): string | undefined => {
    const value = message.headers[name];
    return value?.type === 'string' ? value.value : undefined;
  };
  const data = toUtf8(message.body);
  const type = header(':message-type') ?? 'event';
  if (type === 'event') return { event: header(':event-type') ?? 'event', data, id: undefined };
  return { event: 'exception', data, id: header(':exception-type') ?? header(':error-code') ?? 'unknown' };
}
