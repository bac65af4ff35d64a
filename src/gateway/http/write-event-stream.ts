import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { encodeComment, SSE_HEADERS } from '../../platform/sse.ts';

/** What keeps an idle stream open unless the wire format has its own: a comment line. */
export const KEEP_ALIVE_COMMENT = encodeComment('keep-alive');

/**
 * Writes already-framed server-sent events: each door's (the native API's named events, OpenAI's
 * `data:` chunks, Anthropic's named events).
 *
 * System calls, not bytes, are what a stream costs the gateway. Frames that come out of one
 * upstream read arrive in the same turn of the event loop, so they are joined and written once
 * when that turn ends (the first with the headers); the generator's return value (the last
 * frames) goes out with `end()`, in the same write as the chunked-encoding terminator, so an
 * upstream that answers in one read is written in a single system call. A client that reads
 * slower than the upstream writes is waited for rather than buffered without bound; a comment
 * keeps an idle stream open; and the generator is always returned, so the use case's accounting
 * runs when the client leaves (and the edge closes the run anyway, for a generator the client left
 * before it started).
 */
export async function writeEventStream(
  reply: FastifyReply,
  frames: AsyncGenerator<string, string, undefined>,
  keepAliveMs: number,
  headers: Record<string, string> = {},
  /** What an idle stream gets every `keepAliveMs`: a comment, unless the wire format has its own. */
  keepAliveFrame = KEEP_ALIVE_COMMENT,
): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  // A door may name another content type (the Gemini door's JSON-array stream).
  const head: Record<string, string> = { ...SSE_HEADERS, ...headers };
  // Assigned, not written after the spread in the literal, which V8 would define through its runtime.
  head['x-request-id'] = String(reply.request.id);
  raw.writeHead(200, head);
  let lastWrite = Date.now();
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepAliveMs && !raw.destroyed) {
        raw.write(keepAliveFrame);
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
  let last = '';
  try {
    for (;;) {
      const next = await frames.next();
      if (next.done) {
        last = next.value;
        break;
      }
      if (clientFull) {
        await drainedOrClosed(raw);
        clientFull = false;
      }
      if (raw.destroyed) break;
      waiting += next.value;
      lastWrite = Date.now();
      if (!flushQueued) {
        flushQueued = true;
        // After the promise jobs of this turn, which carry the rest of the same upstream read.
        process.nextTick(flush);
      }
    }
  } finally {
    clearInterval(keepAlive);
    await frames.return('');
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
