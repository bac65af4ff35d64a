import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { encodeEvent, SSE_HEADERS } from '../../../platform/sse.ts';
import type { SseMessage } from './to-anthropic-events.ts';

/**
 * Writes Anthropic's event sequence as server-sent events. As the native writer does, events that
 * come out of one upstream read (the same turn of the event loop) are joined into one write, the
 * last event goes out with `end()`, a client that reads slowly is waited for rather than buffered
 * without bound, and an idle stream gets Anthropic's own keep-alive, a `ping` event, which the
 * SDK skips. `source` is the service's stream under the translation: it is always returned, so
 * that the run records its usage even when the client left.
 */
export async function writeAnthropicStream(
  reply: FastifyReply,
  events: AsyncGenerator<SseMessage, void, undefined>,
  source: AsyncGenerator<unknown, void, undefined>,
  keepAliveMs: number,
  headers: Record<string, string>,
): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    ...headers,
    ...SSE_HEADERS,
    'x-request-id': String(reply.request.id),
    'request-id': String(reply.request.id),
  });
  let lastWrite = Date.now();
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepAliveMs && !raw.destroyed) {
        raw.write(encodeEvent('ping', { type: 'ping' }));
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
  try {
    for await (const message of events) {
      if (clientFull) {
        await drainedOrClosed(raw);
        clientFull = false;
      }
      if (raw.destroyed) break;
      waiting += encodeEvent(message.event, message.data);
      lastWrite = Date.now();
      if (!flushQueued) {
        flushQueued = true;
        // After the promise jobs of this turn, which carry the rest of the same upstream read.
        process.nextTick(flush);
      }
    }
  } finally {
    clearInterval(keepAlive);
    await events.return(undefined);
    await source.return(undefined);
    const rest = waiting;
    waiting = '';
    if (!raw.destroyed) raw.end(rest);
  }
}

/** Resolves at the response's next `drain` or `close`, removing both listeners either way. */
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
