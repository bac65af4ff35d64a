import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { type ErrorCode, errorStatus, toEnvelope } from './errors.ts';
import { pickRequestId } from './ids.ts';

/** How long a socket answered here may still be read (and its input discarded) before it is destroyed. */
const LINGER_MS = 2_000;

interface ClientFault {
  code: ErrorCode;
  message: string;
}

/**
 * Errors Node's HTTP parser and timers raise before a request reaches Fastify: malformed HTTP,
 * headers over the size limit, a request not received in time. Each maps onto the catalogue.
 */
export function toClientFault(error: NodeJS.ErrnoException): ClientFault {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { code: 'request_timeout', message: 'the request was not received in time' };
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return { code: 'headers_too_large', message: 'request headers are too large' };
  return { code: 'invalid_request', message: 'malformed HTTP request' };
}

/** The raw HTTP/1.1 answer for a fault: the envelope, an x-request-id, and `connection: close`. */
export function formatClientFault(fault: ClientFault, requestId: string): string {
  const status = errorStatus[fault.code];
  const body = JSON.stringify(toEnvelope(fault.code, fault.message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`: Fastify's default writes a body of its own shape and no request
 * id. This one writes the envelope. It ends the socket rather than destroying it at once, and reads
 * on for a moment: destroying a socket with unread input makes the kernel send a reset, and a client
 * still writing (a long header, a trickled body) would then lose the answer it was sent.
 */
export function createClientErrorHandler(log: FastifyBaseLogger): (error: Error, socket: Socket) => void {
  // Node's parser reports every later chunk of a socket it failed on again: one answer per socket.
  const answered = new WeakSet<Socket>();
  return (error, socket) => {
    const fault = error as NodeJS.ErrnoException;
    if (fault.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const current = responseInFlight(socket);
    if (current !== undefined) {
      // The request before the fault is being answered (a GET whose body was never read, say):
      // no second status line can follow, but that answer is finished and sent first. Destroying
      // the socket now, with the client's input unread, would make the kernel reset the
      // connection and the client lose the answer it was sent.
      log.debug({ err: error }, 'client error after the answer began; closing once it is sent');
      let closing = false;
      const close = () => {
        if (closing) return;
        closing = true;
        socket.end();
        lingerThenDestroy(socket);
      };
      if (current.writableFinished) close();
      else {
        current.once('finish', close);
        current.once('close', close);
      }
      return;
    }
    const clientFault = toClientFault(fault);
    const requestId = pickRequestId(undefined);
    // One line per answered connection, like a request's, so timeouts and malformed requests show.
    log.info(
      { reqId: requestId, status: errorStatus[clientFault.code], code: clientFault.code, cause: fault.code },
      'answered a client error on the connection',
    );
    socket.end(formatClientFault(clientFault, requestId));
    lingerThenDestroy(socket);
  };
}

/**
 * The response the socket is carrying once its headers are out: it cannot be followed by another
 * status line (Node's default handler checks the same). Undefined when none has begun.
 */
function responseInFlight(socket: Socket): ServerResponse | undefined {
  const current = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  return current?.headersSent === true ? current : undefined;
}

/** Discards what the client still sends until it closes its side, for at most LINGER_MS. */
function lingerThenDestroy(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on('data', discard);
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}

function discard(): void {}
