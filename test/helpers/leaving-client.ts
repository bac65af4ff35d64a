import { connect } from 'node:net';

export interface LeavingRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** When the client closes its socket: some time after its whole body was handed to the kernel, or once it has read a text. */
export type LeaveAt = { afterSentMs: number } | { afterReading: RegExp };

export interface LeftRequest {
  /** What the client had read when it left. */
  received: string;
  /** Whether it left at the moment asked for (false: the server answered and closed first, or 10 s passed). */
  left: boolean;
}

/**
 * One HTTP/1.1 request on a fresh connection, from a client that closes its socket at `leave`
 * without a half-close before (CONTRACT 5.9: its body arrived whole, so it sent a request). The
 * socket is destroyed, not ended: what a client killed mid-request, or one that gave up, does.
 */
export function sendAndLeave(port: number, request: LeavingRequest, leave: LeaveAt): Promise<LeftRequest> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let received = '';
    let left = false;
    const leaveNow = () => {
      if (socket.destroyed) return;
      left = true;
      socket.destroy();
    };
    const giveUp = setTimeout(() => socket.destroy(), 10_000);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if ('afterReading' in leave && leave.afterReading.test(received)) leaveNow();
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ received, left });
    });
    const body = Buffer.from(request.body);
    const head =
      `POST ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n` +
      Object.entries(request.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n';
    socket.write(Buffer.concat([Buffer.from(head), body]), () => {
      if ('afterSentMs' in leave) setTimeout(leaveNow, leave.afterSentMs);
    });
  });
}
