import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { encodeComment, encodeEvent, SSE_HEADERS } from '../../platform/sse.ts';
import type { ChatStream } from '../services/run-chat-stream.ts';

/**
 * Writes a chat stream as server-sent events: `start`, `delta`…, then `done` or `error`.
 * Each delta is written the moment it arrives (no buffering), a comment line goes out when the
 * stream has been idle for `keepAliveMs`, and a client that disconnects stops the upstream.
 */
export async function writeChatStream(
  reply: FastifyReply,
  stream: ChatStream,
  keepAliveMs: number,
  headers: Record<string, string> = {},
): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, { ...headers, ...SSE_HEADERS, 'x-request-id': String(reply.request.id) });
  raw.write(encodeEvent('start', stream.start));
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
  // Events that come out of one upstream read arrive in the same turn of the event loop; corked
  // until that turn ends, they leave in one write instead of one system call each (with chunked
  // encoding, each write is a writev of three buffers). Nothing waits longer than that turn.
  let corked = false;
  const uncork = () => {
    corked = false;
    raw.uncork();
  };
  try {
    for await (const event of stream.events) {
      if (raw.destroyed) break;
      lastWrite = Date.now();
      if (!corked) {
        corked = true;
        raw.cork();
        process.nextTick(uncork);
      }
      if (!raw.write(encodeEvent(event.event, event.data))) {
        // The client reads slower than the upstream writes: wait, rather than buffer without bound.
        await drainedOrClosed(raw);
      }
    }
  } finally {
    clearInterval(keepAlive);
    // Before end(): Node's ServerResponse.end() does not send chunks still held by cork(), and
    // the uncork queued for later would come after the response is over (Node 24.21).
    if (corked) uncork();
    // Leaving the loop early (client gone) must still run the stream's accounting.
    await stream.events.return(undefined);
    if (!raw.destroyed) raw.end();
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
