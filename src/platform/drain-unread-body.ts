import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

export interface DrainLimits {
  /** Unread body bytes discarded after the answer before the connection is destroyed. */
  maxBytes: number;
  /** Time the rest of the body may take to arrive after the answer. */
  maxMs: number;
}

export const DEFAULT_DRAIN_LIMITS: DrainLimits = { maxBytes: 8 * 1024 * 1024, maxMs: 5_000 };

type ClosableSocket = Socket & { destroySoon?: () => void };

/**
 * For an answer sent before the request body was read (413, 401, 415…). Node closes an answer
 * marked `connection: close` (Fastify marks every body error so) by destroying the socket once the
 * answer is flushed; with the client's body still unread, the kernel then resets the connection,
 * and a client that writes its whole body before reading sees EPIPE or a reset, never the answer.
 * Here the socket is only half-closed after the answer, and the rest of the body is read and
 * discarded (Node does that for an unread body once the answer is finished); past `maxBytes` more,
 * or `maxMs`, the connection is destroyed. A kept-alive answer gets the same bound.
 */
export function drainUnreadBody(
  request: IncomingMessage,
  response: ServerResponse,
  limits: DrainLimits = DEFAULT_DRAIN_LIMITS,
): void {
  // `inject()` runs requests over a stand-in socket with nothing to drain or destroy.
  if (!(request.socket instanceof Socket)) return;
  const socket = request.socket as ClosableSocket;
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), limits.maxMs);
  timer.unref();
  const count = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) socket.destroy();
  };
  const ownDestroySoon = Object.hasOwn(socket, 'destroySoon') ? socket.destroySoon : undefined;
  let closing = false;
  socket.destroySoon = () => {
    closing = true;
    socket.end();
  };
  socket.once('close', () => clearTimeout(timer));
  // Counted on the request, not the socket: a socket 'data' listener takes the socket from Node's
  // native parser, after which a socket Node paused for the full request buffer never reads again.
  // Node's own discarding (on 'finish', before this listener) drops earlier 'data' listeners.
  response.once('finish', () => {
    request.on('data', count);
    request.resume();
  });
  request.once('end', () => {
    request.off('data', count);
    if (ownDestroySoon === undefined) Reflect.deleteProperty(socket, 'destroySoon');
    else socket.destroySoon = ownDestroySoon;
    // A kept-alive connection goes on serving; a closing one is destroyed by the timer at the
    // latest, unless the client closes first on reading the answer.
    if (!closing) clearTimeout(timer);
  });
}
