import type { FastifyReply } from 'fastify';
import { encodeEvent } from '../../platform/sse.ts';
import type { ChatStream } from '../services/run-chat-stream.ts';
import { nativeChatAnswer, nativeStart } from './native-chat-answer.ts';
import { writeEventStream } from './write-event-stream.ts';

/**
 * Writes a chat stream as the native API's server-sent events: `start`, `delta` and
 * `tool_call`…, then `done` or `error`. The writing itself (one write per turn of the event loop,
 * the last event with `end()`, waiting for a slow client, keep-alive comments, the stream's
 * accounting run when the client leaves) is `writeEventStream`'s, shared with the compatible doors.
 */
export function writeChatStream(
  reply: FastifyReply,
  stream: ChatStream,
  keepAliveMs: number,
  headers: Record<string, string> = {},
): Promise<void> {
  return writeEventStream(reply, nativeFrames(stream), keepAliveMs, headers);
}

/** The native events as frames; `done` or `error`, always the last, is the return value. */
async function* nativeFrames(stream: ChatStream): AsyncGenerator<string, string, undefined> {
  yield encodeEvent('start', nativeStart(stream.start));
  // Leaving early (the client gone) returns `events` too, which runs the stream's accounting.
  for await (const event of stream.events) {
    if (event.event === 'done') return encodeEvent('done', nativeChatAnswer(event.data));
    const frame = encodeEvent(event.event, event.data);
    if (event.event === 'error') return frame;
    yield frame;
  }
  return '';
}
