import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { encodeComment, encodeEvent, SSE_HEADERS } from '../../platform/sse.ts';
import type { ChatStream } from '../services/run-chat-stream.ts';

/**
 * Writes a chat stream as server-sent events: `start`, `delta` and `tool_call`…, then `done` or
 * `error`.
 * Each delta leaves the turn of the event loop it arrives in (no buffering beyond that), a comment
 * line goes out when the stream has been idle for `keepAliveMs`, and a client that disconnects
 * stops the upstream.
 *
 * System calls, not bytes, are what a stream costs the gateway: events that come out of one
 * upstream read arrive in the same turn, so they are joined and written once when that turn ends
 * (the start event with the first of them, behind the headers), and the last event goes out with
 * `end()`, which Node sends in the same write as the chunked-encoding terminator. An upstream that
 * answers in one read (a short or cached answer) is written in a single system call.
 */
export async function writeChatStream(
  reply: FastifyReply,
  stream: ChatStream,
  keepAliveMs: number,
  headers: Record<string, string> = {},
): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  // Sent with the first write, not on its own.
  raw.writeHead(200, { ...headers, ...SSE_HEADERS, 'x-request-id': String(reply.request.id) });
  let lastWrite = Date.now();
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepAliveMs && !raw.destroyed) {
        raw.write(encodeComment('keep-alive'));
        lastWrite = Date.now();
      }
    },
    Math.max(50, Math.floor(keepAliveMs / 2)),
  );
  keepAlive.unref();

  let waiting = '';
  let flushQueued = false;
  let clientFull = false;
  const flush = () => {
    flushQueued = false;
    if (waiting === '' || raw.destroyed) return;
    clientFull = !raw.write(waiting);
    waiting = '';
  };
  const send = (text: string) => {
    waiting += text;
    lastWrite = Date.now();
    if (!flushQueued) {
      flushQueued = true;
      // After the promise jobs of this turn, which carry the rest of the same upstream read.
      process.nextTick(flush);
    }
  };

  send(encodeEvent('start', stream.start));
  let last = '';
  try {
    for await (const event of stream.events) {
      // The client reads slower than the upstream writes: wait, rather than buffer without bound.
      if (clientFull) {
        await drainedOrClosed(raw);
        clientFull = false;
      }
      if (raw.destroyed) break;
      const text = encodeEvent(event.event, event.data);
      // `done` or `error` is always the last event: it goes out with end().
      if (event.event === 'done' || event.event === 'error') {
        last = text;
        continue;
      }
      send(text);
    }
  } finally {
    clearInterval(keepAlive);
    // Leaving the loop early (client gone) must still run the stream's accounting.
    await stream.events.return(undefined);
    const rest = waiting + last;
    waiting = '';
    if (!raw.destroyed) raw.end(rest);
  }
}

/**
 * Resolves at the response's next `drain` or at its `close`, and removes both listeners either
 * way (`Promise.race` over two `once` calls leaves the loser's listeners on the response, one
 * pair per wait, until Node warns of a leak on a long stream to a slow client).
 */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
